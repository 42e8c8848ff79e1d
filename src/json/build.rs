//! The one-pass strict parse behind [`super::parse_strict`]: the scanner's
//! grammar, depth and duplicate-key checks (the lexing functions of
//! [`super::scan`], the same error kinds and offsets) while the `Value` is
//! built, so a server that wants the vetted `Value` pays for one pass, not
//! a scan and then `serde_json`.
//!
//! The value is exactly what `serde_json::from_slice::<Value>` (with its
//! `float_roundtrip` feature) builds: strings and keys unescaped, integers
//! without fraction or exponent kept as `u64` (non-negative) or `i64`
//! (negative), every other number (`-0`, integers beyond 64 bits, fractions,
//! exponents) the correctly rounded `f64` (`str::parse`, as `float_roundtrip`
//! rounds). UTF-8 is checked per string as it is copied out; everything
//! outside strings is ASCII by the grammar, so an accepted text is UTF-8.
//! Any refusal is reported by the caller after a whole-input UTF-8 check,
//! so an invalid byte anywhere wins, as it did when UTF-8 was checked first.
use serde_json::{Map, Number, Value};

use super::scan::{
    colon, key, literal, not_a_separator, not_a_value, number, pointer, skip_ws, string, Fail,
    Frame, Keys, NumberToken,
};
use super::{DuplicateKey, SyntaxKind};

/// A container being built.
enum Open {
    Array(Vec<Value>),
    /// The object so far and the key of the member being read.
    Object(Map<String, Value>, String),
}

/// Invalid UTF-8 inside a string: the caller's whole-input check reports it
/// with its offset (this offset is never shown).
#[cold]
fn not_utf8<T>(at: usize) -> Result<T, Fail> {
    Err(Fail::Syntax(SyntaxKind::Rejected, at))
}

/// The string whose opening quote is at `pos`, unescaped and UTF-8 checked;
/// and the offset after it.
#[inline]
fn string_value(b: &[u8], pos: usize, scratch: &mut Vec<u8>) -> Result<(usize, String), Fail> {
    scratch.clear();
    let (end, escaped) = string(b, pos, Some(scratch))?;
    let raw: &[u8] = if escaped {
        scratch
    } else {
        b.get(pos + 1..end - 1).unwrap_or_default()
    };
    match std::str::from_utf8(raw) {
        Ok(s) => Ok((end, s.to_owned())),
        Err(_) => not_utf8(pos),
    }
}

/// The number token at `start` as `serde_json` stores it.
fn number_value(b: &[u8], start: usize, t: &NumberToken) -> Result<Number, Fail> {
    let text = b.get(start..t.end).unwrap_or_default();
    if !t.float {
        let (negative, digits) = match text.split_first() {
            Some((b'-', d)) => (true, d),
            _ => (false, text),
        };
        let mut sig: Option<u64> = Some(0);
        for &d in digits {
            sig = sig
                .and_then(|s| s.checked_mul(10))
                .and_then(|s| s.checked_add(u64::from(d.wrapping_sub(b'0'))));
        }
        if let Some(sig) = sig {
            if !negative {
                return Ok(Number::from(sig));
            }
            // As serde_json: a negative integer is an `i64` when it is one
            // and not zero; `-0` and anything below `i64::MIN` are floats.
            let n = (sig as i64).wrapping_neg();
            if n < 0 {
                return Ok(Number::from(n));
            }
            return float_number(-(sig as f64), start);
        }
    }
    let f = std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse::<f64>().ok());
    match f {
        Some(f) => float_number(f, start),
        None => Err(Fail::Syntax(SyntaxKind::InvalidNumber, start)),
    }
}

fn float_number(f: f64, start: usize) -> Result<Number, Fail> {
    Number::from_f64(f).ok_or(Fail::Syntax(SyntaxKind::NumberOutOfRange, start))
}

/// Reads `"key" :` at `at` in the innermost frame (an object), checking
/// duplicates; returns the offset of the member's value and the key.
#[inline(always)]
fn member<'a>(
    b: &'a [u8],
    at: usize,
    frames: &mut [Frame<'a>],
    keys: &mut Keys<'a>,
    scratch: &mut Vec<u8>,
) -> Result<(usize, String), Fail> {
    let (end, k, fp) = key(b, at, scratch)?;
    let name = match std::str::from_utf8(&k) {
        Ok(s) => s.to_owned(),
        Err(_) => return not_utf8(at),
    };
    if let Some(frame) = frames.last_mut() {
        if keys.insert(frame, k, fp) {
            return Err(Fail::Duplicate(DuplicateKey {
                key: name,
                pointer: pointer(frames, keys, None),
                offset: at,
            }));
        }
    }
    Ok((colon(b, end)?, name))
}

/// Parses `b` (a whole JSON text) into a `Value`, refusing nesting deeper
/// than `max_depth` and duplicate keys; the first fault in document order
/// stops the parse.
pub(super) fn build(b: &[u8], max_depth: usize) -> Result<Value, Fail> {
    let mut frames: Vec<Frame<'_>> = Vec::with_capacity(8);
    let mut open: Vec<Open> = Vec::with_capacity(8);
    let mut keys = Keys::with_capacity(16);
    let mut scratch = Vec::new();
    let mut pos = skip_ws(b, 0);
    loop {
        // A value is expected at `pos`.
        let c = b.get(pos).copied();
        let mut value = match c {
            Some(o @ (b'{' | b'[')) => {
                if frames.len() >= max_depth {
                    return Err(Fail::TooDeep {
                        offset: pos,
                        pointer: pointer(&frames, &keys, None),
                    });
                }
                let object = o == b'{';
                frames.push(Frame::new(object, keys.len(), pos));
                pos = skip_ws(b, pos + 1);
                let close = if object { b'}' } else { b']' };
                if b.get(pos) == Some(&close) {
                    frames.pop();
                    pos += 1;
                    if object {
                        Value::Object(Map::new())
                    } else {
                        Value::Array(Vec::new())
                    }
                } else if object {
                    let (p, k) = member(b, pos, &mut frames, &mut keys, &mut scratch)?;
                    open.push(Open::Object(Map::new(), k));
                    pos = p;
                    continue;
                } else {
                    open.push(Open::Array(Vec::new()));
                    continue;
                }
            }
            Some(b'"') => {
                let (end, s) = string_value(b, pos, &mut scratch)?;
                pos = end;
                Value::String(s)
            }
            Some(b'-' | b'0'..=b'9') => {
                let t = number(b, pos)?;
                let n = number_value(b, pos, &t)?;
                pos = t.end;
                Value::Number(n)
            }
            Some(b't') => {
                pos = literal(b, pos, b"true")?;
                Value::Bool(true)
            }
            Some(b'f') => {
                pos = literal(b, pos, b"false")?;
                Value::Bool(false)
            }
            Some(b'n') => {
                pos = literal(b, pos, b"null")?;
                Value::Null
            }
            c => return not_a_value(c, pos),
        };
        // `value` just completed, ending at `pos`: add it to the enclosing
        // containers, closing them until one goes on.
        loop {
            let (Some(frame), Some(container)) = (frames.last_mut(), open.last_mut()) else {
                let p = skip_ws(b, pos);
                if p != b.len() {
                    return Err(Fail::Syntax(SyntaxKind::TrailingCharacters, p));
                }
                return Ok(value);
            };
            match container {
                Open::Array(items) => items.push(value),
                Open::Object(map, k) => {
                    map.insert(std::mem::take(k), value);
                }
            }
            let p = skip_ws(b, pos);
            let c = b.get(p).copied();
            let object = frame.object;
            if c == Some(b',') {
                let q = skip_ws(b, p + 1);
                if object {
                    let (next, k) = member(b, q, &mut frames, &mut keys, &mut scratch)?;
                    if let Some(Open::Object(_, pending)) = open.last_mut() {
                        *pending = k;
                    }
                    pos = next;
                } else {
                    frame.index += 1;
                    pos = q;
                }
                break;
            }
            if c == Some(if object { b'}' } else { b']' }) {
                let keys_start = frame.keys_start;
                frames.pop();
                keys.truncate(keys_start);
                value = match open.pop() {
                    Some(Open::Array(items)) => Value::Array(items),
                    Some(Open::Object(map, _)) => Value::Object(map),
                    None => Value::Null,
                };
                pos = p + 1;
                continue;
            }
            return not_a_separator(c, p, object);
        }
    }
}
