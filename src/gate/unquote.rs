//! Percent-encoding (RFC 3986) and JavaScript's `%uXXXX` escapes as the
//! servers behind the gateway undo them: every reading of a text that up to
//! [`MAX_PERCENT_DECODINGS`] decodings, each of either kind and in any
//! order, may give, so that a check that passes each of them passes what
//! any server reads; and whether the deepest readings still decode (a
//! text encoded deeper than the gateway decodes).
//!
//! One tree serves the URL check, the path check ([`super::Roots`]) and the
//! reading of object keys: `%u00252e` is `%2e` after `unescape` and `.`
//! after one percent-decoding more, whichever check looks.

use std::borrow::Cow;

use super::urls::js_unescape;

/// Most decodings, of either kind (a percent-decoding, JavaScript's
/// `unescape`), the gateway applies to one text to check what a server that
/// decodes it reads (a server may decode `%2e%2e%2f`, one decoding of
/// `%252e` gives `%2e`, `unescape` of `%u00252e` gives `%252e`); a text
/// that still decodes after that is refused where its reading matters.
pub const MAX_PERCENT_DECODINGS: usize = 2;

/// The readings of one text ([`decodings`]).
#[derive(Debug)]
pub(crate) struct Decodings<'a> {
    /// The text as written, then each distinct reading, by depth.
    forms: Vec<Cow<'a, str>>,
    /// Where in `forms` the readings [`MAX_PERCENT_DECODINGS`] decodings
    /// deep that decode once more are.
    deeper: Vec<usize>,
    /// Whether a percent-decoding gave bytes that are no UTF-8 (its form is
    /// read with U+FFFD in their place).
    not_utf8: bool,
}

impl<'a> Decodings<'a> {
    /// The text as written, then each distinct reading, by depth: at most
    /// 2^([`MAX_PERCENT_DECODINGS`] + 1) − 1 (7).
    pub(crate) fn forms(&self) -> &[Cow<'a, str>] {
        &self.forms
    }

    /// Consumes the readings into their forms.
    pub(crate) fn into_forms(self) -> Vec<Cow<'a, str>> {
        self.forms
    }

    /// The readings [`MAX_PERCENT_DECODINGS`] decodings deep that one
    /// decoding more still changes: a server that decodes once more than
    /// the gateway reads what no check saw.
    pub(crate) fn deeper(&self) -> impl Iterator<Item = &str> {
        self.deeper
            .iter()
            .filter_map(|&i| self.forms.get(i).map(|f| &**f))
    }

    /// Whether a percent-decoding of a reading gave bytes that are no UTF-8.
    pub(crate) fn not_utf8(&self) -> bool {
        self.not_utf8
    }
}

/// Every reading of `text` up to [`MAX_PERCENT_DECODINGS`] decodings
/// deep, each a percent-decoding ([`percent_encoding`]; bytes that are no
/// UTF-8 read as U+FFFD, and noted) or JavaScript's `unescape`
/// ([`js_unescape`]: `%uXXXX` and `%XX`) of a reading one level up; a
/// decoding that changes nothing, or gives a reading already made, adds
/// none. Bounded: each reading gives at most two, each no longer than it.
pub(crate) fn decodings(text: &str) -> Decodings<'_> {
    let mut forms = vec![Cow::Borrowed(text)];
    let mut not_utf8 = false;
    let mut level = 0..1;
    let mut depth = 0;
    while depth < MAX_PERCENT_DECODINGS && !level.is_empty() {
        let start = forms.len();
        for i in level {
            let next = forms
                .get(i)
                .map(|f| one_decoding(f, &mut not_utf8))
                .unwrap_or_default();
            for n in next {
                if !forms.iter().any(|f| **f == *n) {
                    forms.push(Cow::Owned(n));
                }
            }
        }
        level = start..forms.len();
        depth += 1;
    }
    let deeper = level
        .filter(|&i| {
            forms
                .get(i)
                .is_some_and(|f| !one_decoding(f, &mut false).is_empty())
        })
        .collect();
    Decodings {
        forms,
        deeper,
        not_utf8,
    }
}

/// The readings one decoding of `form` gives that differ from it: its
/// percent-decoding, and JavaScript's `unescape` of it.
fn one_decoding(form: &str, not_utf8: &mut bool) -> Vec<String> {
    let mut out = Vec::new();
    if !form.contains('%') {
        return out;
    }
    let bytes = percent_encoding::percent_decode_str(form);
    match bytes.clone().decode_utf8() {
        Ok(Cow::Owned(decoded)) => out.push(decoded),
        Ok(Cow::Borrowed(_)) => {}
        Err(_) => {
            *not_utf8 = true;
            out.push(bytes.decode_utf8_lossy().into_owned());
        }
    }
    // Never `form` itself: an escape it found is six bytes read as one
    // character.
    if let Some(unescaped) = js_unescape(form).filter(|u| !out.contains(u)) {
        out.push(unescaped);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(text: &str) -> Vec<String> {
        decodings(text)
            .forms()
            .iter()
            .map(|f| f.to_string())
            .collect()
    }

    #[test]
    fn readings_by_depth_and_kind() {
        assert_eq!(forms("plain"), ["plain"]);
        assert_eq!(forms("a%2Fb"), ["a%2Fb", "a/b"]);
        assert_eq!(forms("%252e"), ["%252e", "%2e", "."]);
        assert_eq!(forms("%u002e"), ["%u002e", "."]);
        // `unescape`, then a percent-decoding, in either order.
        assert_eq!(forms("http%u00253A"), ["http%u00253A", "http%3A", "http:"]);
        assert_eq!(forms("%25u002e"), ["%25u002e", "%u002e", "."]);
        assert!(decodings("a%2Fb").deeper().next().is_none());
        assert!(decodings("%252e").deeper().next().is_none());
    }

    #[test]
    fn readings_past_the_bound_are_named() {
        let d = decodings("%25252e");
        assert_eq!(d.deeper().collect::<Vec<_>>(), ["%2e"]);
        let d = decodings("http%u0025253A%u0025252F%u0025252F127.0.0.1");
        assert_eq!(d.deeper().collect::<Vec<_>>(), ["http%3A%2F%2F127.0.0.1"]);
        // Two levels of encoding, each decoded: nothing deeper.
        assert!(decodings("%u0025u002e").deeper().next().is_none());
    }

    #[test]
    fn bytes_that_are_no_utf8_are_noted() {
        let d = decodings("a%FFb");
        assert!(d.not_utf8());
        assert_eq!(d.forms().get(1).map(|f| &**f), Some("a\u{fffd}b"));
        assert!(!decodings("a%C3%A9").not_utf8());
    }

    proptest::proptest! {
        /// Each reading is no longer than the text, and there are at most
        /// 2^(MAX_PERCENT_DECODINGS + 1) − 1 of them, distinct, the text
        /// first.
        #[test]
        fn readings_are_bounded_and_distinct(text in "(%|25|u00|2[eE]|[0-9a-fA-F]|[a-z./])*") {
            let d = decodings(&text);
            let f = d.forms();
            proptest::prop_assert_eq!(f.first().map(|f| &**f), Some(text.as_str()));
            proptest::prop_assert!(f.len() < 1 << (MAX_PERCENT_DECODINGS + 1));
            for (i, a) in f.iter().enumerate() {
                proptest::prop_assert!(a.chars().count() <= text.chars().count());
                proptest::prop_assert!(f.iter().skip(i + 1).all(|b| b != a));
            }
        }
    }
}
