//! Base64 as the lenient decoders real clients and servers use read it,
//! shared by the answer screen ([`super::poison`]) and the YAML reader's
//! `!!binary` ([`super::decide`]): every reading such a decoder may give,
//! so that a check that passes each of them passes what any of them reads.

/// Most readings the gateway makes of one base64 text: each of three
/// rules for where a lenient decoder stops at `=` (concatenated streams,
/// the first complete padding, the first `=`) under each of two alphabets
/// (standard and url-safe read as one; standard with `-` and `_` dropped
/// as Python drops them).
pub const MAX_BASE64_READINGS: usize = 6;

/// Where a lenient base64 decoder stops at `=` (see [`base64_readings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PadRule {
    /// A complete padding ends one stream and the next starts after it
    /// (decoders that read concatenated base64).
    Concatenated,
    /// The first complete padding ends the input (Python's
    /// `base64.b64decode`, Perl's `decode_base64`).
    FirstComplete,
    /// The first `=` ends the input (Node's `Buffer.from(s, "base64")`).
    FirstPad,
}

/// Which letters a lenient base64 decoder reads as digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alphabet {
    /// Both alphabets: `+` and `-` are 62, `/` and `_` 63 (Node).
    Either,
    /// The standard one only: `-` and `_` dropped as any other junk
    /// (Python's `b64decode`, `decodebytes`, `a2b_base64`, PyYAML's
    /// `!!binary`, `urllib`'s `data:` URLs).
    Standard,
}

/// The value of a base64 letter of either alphabet (`+`/`-` 62, `/`/`_` 63).
pub(crate) fn sextet(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// Base64 as the most lenient decoders read it: every byte that is no
/// letter of `alphabet` nor `=` discarded (white space, `*`, `.`, `!`,
/// and `-`, `_` under [`Alphabet::Standard`]); an `=` that cannot end a
/// quantum (a leading `=`, one after a single letter) ignored, as Python
/// does; padding optional; a last lone letter dropped; `=` handled by
/// `rule`. One pass, never fails.
pub(crate) fn lenient_decode(s: &[u8], rule: PadRule, alphabet: Alphabet) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 2);
    let (mut acc, mut bits, mut quad, mut pads) = (0_u32, 0_u32, 0_usize, 0_usize);
    for &b in s {
        if b == b'=' {
            if rule == PadRule::FirstPad {
                break;
            }
            if quad >= 2 {
                pads += 1;
                if quad + pads >= 4 {
                    if rule == PadRule::FirstComplete {
                        break;
                    }
                    (acc, bits, quad, pads) = (0, 0, 0, 0);
                }
            }
            continue;
        }
        if alphabet == Alphabet::Standard && matches!(b, b'-' | b'_') {
            continue;
        }
        let Some(v) = sextet(b) else {
            continue;
        };
        pads = 0;
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        quad = (quad + 1) % 4;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xFF).unwrap_or_default());
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// The distinct byte strings base64 `s` decodes to under the lenient
/// decoders real clients use: each [`PadRule`] (one when `s` holds no `=`
/// before its last letter), under each [`Alphabet`] (one when `s` holds
/// no `-` nor `_`); at most [`MAX_BASE64_READINGS`], each a pass over `s`.
/// The first is the reading of both alphabets, concatenated.
pub(crate) fn base64_readings(s: &[u8]) -> Vec<Vec<u8>> {
    let body = s
        .iter()
        .rposition(|&b| sextet(b).is_some())
        .and_then(|last| s.get(..last))
        .unwrap_or_default();
    let rules: &[PadRule] = if body.contains(&b'=') {
        &[
            PadRule::Concatenated,
            PadRule::FirstComplete,
            PadRule::FirstPad,
        ]
    } else {
        &[PadRule::Concatenated]
    };
    let alphabets: &[Alphabet] = if s.iter().any(|b| matches!(b, b'-' | b'_')) {
        &[Alphabet::Either, Alphabet::Standard]
    } else {
        &[Alphabet::Either]
    };
    let mut readings: Vec<Vec<u8>> = Vec::with_capacity(rules.len() * alphabets.len());
    for &alphabet in alphabets {
        for &rule in rules {
            let r = lenient_decode(s, rule, alphabet);
            if !readings.contains(&r) {
                readings.push(r);
            }
        }
    }
    readings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_by_rule_and_alphabet() {
        use PadRule::{Concatenated, FirstComplete, FirstPad};
        let either = Alphabet::Either;
        assert_eq!(
            lenient_decode(b"=QUJD*RE.VG!!", Concatenated, either),
            b"ABCDEF"
        );
        assert_eq!(lenient_decode(b"QQ=QkI", FirstPad, either), b"A");
        assert_eq!(lenient_decode(b"QQ==QkI=", FirstComplete, either), b"A");
        assert_eq!(lenient_decode(b"QQ==QkI=", Concatenated, either), b"ABB");
        assert_eq!(base64_readings(b"QUJD=").len(), 1);
        assert_eq!(base64_readings(b"QQ==QkI=").len(), 2);
        assert_eq!(base64_readings(b"QQ=QkIx==QUJD").len(), 3);
        // `-` and `_`: url-safe digits to Node, junk to Python (#20, N1).
        assert_eq!(
            lenient_decode(b"-QUJD", Concatenated, Alphabet::Standard),
            b"ABC"
        );
        assert_eq!(
            lenient_decode(b"QU_JD_", Concatenated, Alphabet::Standard),
            b"ABC"
        );
        assert_eq!(
            base64_readings(b"L2V0Y_y9wYXNzd2Q="),
            vec![
                lenient_decode(b"L2V0Y_y9wYXNzd2Q=", Concatenated, either),
                b"/etc/passwd".to_vec()
            ]
        );
        let most = base64_readings(b"-QQ=QkIx==QUJD_=QQ");
        assert!((4..=MAX_BASE64_READINGS).contains(&most.len()), "{most:?}");
        assert_eq!(base64_readings(b"_-"), vec![vec![0xff], vec![]]);
    }
}
