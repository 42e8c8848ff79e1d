//! Which characters a reader does not see: by Unicode property ([`class`],
//! the ICU4X tables of `icu_properties`) and in context ([`Context`]): the
//! selectors, joiners and tags that are part of visible writing.
//!
//! Visible writing that uses otherwise hidden characters:
//! * emoji as UTS #51 writes them (`EmojiSequence`): one VS15 or VS16 right
//!   after a non-ASCII character with the `Emoji` property (`⚠️`, `✔️`), or
//!   after an ASCII one (`#`, `*`, a digit) when the keycap U+20E3 follows
//!   (`1️⃣`); a zero width joiner between two visible
//!   `Extended_Pictographic` characters (`👨‍💻`, `👩‍❤️‍👨`; the property also
//!   holds reserved code points, which are hidden); and the tags of an RGI
//!   subdivision flag ([`RGI_SUBDIVISION_FLAGS`]);
//! * the joiners of scripts that write with them (`JoinerContext`, UAX #31
//!   section 2.3): a ZWNJ between a letter joining to its left and one
//!   joining to its right, transparent marks between (Persian `می‌خواهم`,
//!   rule A1), and a ZWNJ or ZWJ after a virama (Indic half forms, rules
//!   A2 and B).
//!
//! A run of selectors or joiners, VS1–VS14 and VS17–VS256 (the
//! ideographic variation sequences among them: not admitted, a selector
//! per ideograph would carry a hidden byte), a selector or joiner anywhere
//! else, and any other tag run are still found.

use icu_properties::props::{
    BidiControl, CanonicalCombiningClass, DefaultIgnorableCodePoint, Emoji, EmojiModifier,
    ExtendedPictographic, GeneralCategory, JoiningType, VariationSelector,
};
use icu_properties::{CodePointMapData, CodePointSetData};

/// Most characters read past a ZWNJ to find the letter it stands before
/// (UAX #31 rule A1 allows transparent marks between): a bounded look-ahead
/// per joiner; a ZWNJ with more marks after it is hidden.
pub const MAX_JOINER_LOOKAHEAD: usize = 16;

/// Characters defined to draw as nothing that no property above marks
/// (neither format, default-ignorable nor a variation selector): U+16FE4
/// KHITAN SMALL SCRIPT FILLER (a non-spacing mark) and U+1D159 MUSICAL
/// SYMBOL NULL NOTEHEAD (attack s69-B). Blank but visible spaces
/// (U+2800 BRAILLE PATTERN BLANK) are no such character.
const DRAWN_AS_NOTHING: &[char] = &['\u{16FE4}', '\u{1D159}'];

/// What kind of hidden character a character is ([`class`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// A tag character (U+E0000–U+E007F).
    Tag,
    /// A `Bidi_Control` character.
    Bidi,
    /// Format, default-ignorable, variation selector, line or paragraph
    /// separator, unassigned or private use.
    Invisible,
    /// A control character (`Cc`) but tab, line feed and carriage return.
    Control,
}

/// `true` for a character the screen calls hidden by its Unicode
/// properties alone (tag, bidirectional control, format,
/// default-ignorable, variation selector, line or paragraph separator,
/// unassigned, private use, control but tab, LF and CR): what the
/// gateway's log escapes beyond [`crate::terminal::escape_controls`].
pub fn is_hidden_char(c: char) -> bool {
    class(c).is_some()
}

/// `text` as a reader that drops what it does not show reads it: each
/// terminal escape sequence removed whole ([`skip_escape`]), then every
/// character [`class`] calls hidden (tab, LF and CR kept).
/// `ht\x1b[0mtp://`, `http\u{200B}://` read `http://`; a server that
/// strips escapes and invisible characters before it reads a URL, a path
/// or a name sees it so (attack s74-B, F1, F2). Borrowed when nothing is
/// dropped.
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().all(|c| class(c).is_none()) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if starts_escape(c) {
            skip_escape(c, &mut chars);
        } else if class(c).is_none() {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` with each terminal escape sequence removed whole
/// ([`skip_escape`]) and every other character kept, as a server that
/// strips escapes (and nothing else) before it splits a list reads it;
/// `None` when no escape starts in it. Bounded by the text's length.
pub(crate) fn without_escapes(text: &str) -> Option<String> {
    if !text.contains(starts_escape) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if starts_escape(c) {
            skip_escape(c, &mut chars);
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// `true` when `c` starts a terminal escape sequence: ESC, or the C1
/// CSI (U+009B). The C1 controls that open a control string (U+0090,
/// U+0098, U+009D–U+009F) are hidden one by one, not read as a string:
/// UTF-8 text read as Latin-1 holds them (`”` is `â\u{80}\u{9D}`), and
/// a string would take all the text after one.
pub(crate) fn starts_escape(c: char) -> bool {
    matches!(c, '\u{1b}' | '\u{9b}')
}

/// Consumes the rest of the escape sequence `first` ([`starts_escape`])
/// started, as a terminal reads it (ECMA-48, ECMA-35); the one reading of
/// escape sequences, for the screen and for [`shown`]:
/// * a CSI (ESC `[`, U+009B): parameter and intermediate characters
///   (U+0020–U+003F, with the C0 controls and DEL a terminal acts on or
///   ignores inside one), then one more (its final byte); CAN or SUB
///   cancels it (taken), an ESC cancels it and starts the next sequence
///   (the VT parser of xterm, `vte` and the strippers built on them);
/// * a control string (ESC `]` OSC, ESC `P` DCS, ESC `X` SOS, ESC `^` PM,
///   ESC `_` APC): up to ST (ESC `\` or U+009C), CAN or SUB (an OSC to
///   BEL too, as a VT parser ends only an OSC at BEL), all
///   hidden, whatever the string holds (a title, a link, a whole
///   instruction); an ESC that is no ST ends it and starts the next
///   sequence;
/// * ESC, intermediates (U+0020–U+002F), then one final character
///   (U+0030–U+007E): `ESC ( B`, `ESC M`, `ESC c`, `ESC 7`;
/// * ESC before anything else (a control, a letter outside ASCII, the
///   end): ESC alone.
pub(crate) fn skip_escape(first: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    const CAN: char = '\u{18}';
    const SUB: char = '\u{1a}';
    let mut first = first;
    // One sequence a turn: a string cut short by an ESC that is no ST goes
    // on with the sequence that ESC starts (each turn takes an ESC).
    loop {
        let kind = match first {
            '\u{9b}' => '[',
            _ => {
                let Some(&next) = chars.peek() else {
                    return;
                };
                if !('\u{20}'..='\u{7e}').contains(&next) {
                    return;
                }
                chars.next();
                next
            }
        };
        match kind {
            '[' => {
                while let Some(&c) = chars.peek() {
                    // An ESC cancels the CSI and starts the next sequence.
                    if c == '\u{1b}' {
                        return;
                    }
                    chars.next();
                    // Parameters, intermediates, and the C0 controls and
                    // DEL a terminal acts on or ignores within one.
                    let within = ('\u{20}'..='\u{3f}').contains(&c)
                        || (c < '\u{20}' && !matches!(c, CAN | SUB))
                        || c == '\u{7f}';
                    if !within {
                        // Its final byte, or CAN or SUB cancelling it.
                        return;
                    }
                }
                return;
            }
            string @ (']' | 'P' | 'X' | '^' | '_') => {
                let mut next_escape = false;
                while let Some(c) = chars.next() {
                    // BEL ends an OSC only: a DCS, SOS, PM or APC string
                    // runs on to ST (attack s78-B, F2).
                    if matches!(c, '\u{9c}' | CAN | SUB) || (c == '\u{7}' && string == ']') {
                        break;
                    }
                    if c == '\u{1b}' {
                        if chars.peek() == Some(&'\\') {
                            chars.next();
                        } else {
                            next_escape = true;
                        }
                        break;
                    }
                }
                if !next_escape {
                    return;
                }
                first = '\u{1b}';
            }
            // Intermediates, then the final character.
            '\u{20}'..='\u{2f}' => {
                while let Some(&c) = chars.peek() {
                    if !('\u{20}'..='\u{7e}').contains(&c) {
                        break;
                    }
                    chars.next();
                    if !('\u{20}'..='\u{2f}').contains(&c) {
                        break;
                    }
                }
                return;
            }
            _ => return,
        }
    }
}

/// The kind of hidden character `c` is by its Unicode properties alone,
/// `None` for a character a reader sees (and tab, LF, CR). In context some
/// of them are visible writing after all ([`Context`]).
pub(crate) fn class(c: char) -> Option<Class> {
    if matches!(c, '\t' | '\n' | '\r') {
        return None;
    }
    if ('\u{E0000}'..='\u{E007F}').contains(&c) {
        return Some(Class::Tag);
    }
    if DRAWN_AS_NOTHING.contains(&c) {
        return Some(Class::Invisible);
    }
    if CodePointSetData::new::<BidiControl>().contains(c) {
        return Some(Class::Bidi);
    }
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    if gc == GeneralCategory::Control {
        return Some(Class::Control);
    }
    if matches!(
        gc,
        GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::Unassigned
            | GeneralCategory::PrivateUse
    ) || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || CodePointSetData::new::<VariationSelector>().contains(c)
    {
        return Some(Class::Invisible);
    }
    None
}

/// Whether `c` is a hidden character only a writer puts in text (a tag,
/// a `Bidi_Control`, a format, default-ignorable or blank character, a
/// variation selector; not a control, an unassigned or a private-use code
/// point, which random bytes decode to as well): a short text decoded from
/// base64 that holds one is text someone wrote.
pub(crate) fn written_hidden(c: char) -> bool {
    match class(c) {
        Some(Class::Tag | Class::Bidi) => true,
        Some(Class::Invisible) => !matches!(
            CodePointMapData::<GeneralCategory>::new().get(c),
            GeneralCategory::Unassigned | GeneralCategory::PrivateUse
        ),
        Some(Class::Control) | None => false,
    }
}

/// The RGI emoji tag sequences (UTS #51 `emoji-sequences.txt`,
/// `RGI_Emoji_Tag_Sequence`): the subdivision flags of England, Scotland
/// and Wales, each written as U+1F3F4 WAVING BLACK FLAG, these ids in tag
/// characters (U+E0020–U+E007E, the ASCII of each id plus U+E0000), and
/// U+E007F CANCEL TAG. No Unicode property names them (ICU4X has none for
/// strings but `Basic_Emoji`). Only these are passed: a flag of any other
/// well-formed id draws as a black flag, and its tags would spell hidden
/// text, a few letters a flag.
pub const RGI_SUBDIVISION_FLAGS: &[&str] = &["gbeng", "gbsct", "gbwls"];

/// Most tag characters read after U+1F3F4 to find an RGI subdivision flag
/// ([`RGI_SUBDIVISION_FLAGS`]): the longest subdivision id (UTS #35, a
/// region of three digits and a suffix of four), so each flag costs a
/// bounded look-ahead.
pub const MAX_SUBDIVISION_TAGS: usize = 7;

/// U+200D ZERO WIDTH JOINER.
const ZWJ: char = '\u{200D}';
/// U+FE0E VARIATION SELECTOR-15 (text presentation).
const VS15: char = '\u{FE0E}';
/// U+FE0F VARIATION SELECTOR-16 (emoji presentation).
const VS16: char = '\u{FE0F}';
/// U+1F3F4 WAVING BLACK FLAG, the base of the subdivision flags.
const TAG_BASE: char = '\u{1F3F4}';
/// U+E007F CANCEL TAG, the end of a tag sequence.
const TAG_END: char = '\u{E007F}';

/// Where a text stands in an emoji sequence as UTS #51 writes one, read
/// left to right by [`clean`]: which of the characters it would flag
/// (selectors, joiners, tags) are part of an emoji and stay.
#[derive(Debug, Clone, Copy, Default)]
struct EmojiSequence {
    /// The character before (none at the start, or after an escape).
    prev: Option<char>,
    /// The text so far ends with an element a joiner may follow: an
    /// `Extended_Pictographic` character, optionally with a VS16 (`vs`)
    /// and an `Emoji_Modifier` (`modifier`) after it.
    element: Option<ZwjElement>,
    /// Characters still to come of an RGI subdivision flag's tags, read
    /// ahead at its U+1F3F4.
    tags_left: usize,
}

/// The end of an element of an emoji ZWJ sequence ([`EmojiSequence::element`]).
#[derive(Debug, Clone, Copy)]
struct ZwjElement {
    vs: bool,
    modifier: bool,
}

fn is_emoji(c: char) -> bool {
    CodePointSetData::new::<Emoji>().contains(c)
}

/// `true` for a visible `Extended_Pictographic` character: the property
/// also holds about 1,500 reserved code points (blocks kept for future
/// emoji), which are hidden ([`class`]) and join nothing.
fn is_pictographic(c: char) -> bool {
    CodePointSetData::new::<ExtendedPictographic>().contains(c) && class(c).is_none()
}

impl EmojiSequence {
    /// `true` when `c`, followed by `rest`, is part of an emoji sequence:
    /// a VS15 or VS16 right after an `Emoji` character (an ASCII one only
    /// before a keycap), a joiner after a ZWJ element and before a visible
    /// `Extended_Pictographic` character, or a tag of an RGI subdivision
    /// flag.
    fn admits(&self, c: char, rest: &std::iter::Peekable<std::str::Chars<'_>>) -> bool {
        if self.tags_left > 0 {
            return true;
        }
        match c {
            VS15 | VS16 => self.prev.is_some_and(|p| {
                is_emoji(p) && (!p.is_ascii() || rest.clone().next() == Some(KEYCAP))
            }),
            ZWJ => self.element.is_some() && rest.clone().next().is_some_and(is_pictographic),
            _ => false,
        }
    }

    /// Moves past `c` (`admitted` as [`EmojiSequence::admits`] said),
    /// `rest` following it.
    fn step(&mut self, c: char, admitted: bool, rest: &std::iter::Peekable<std::str::Chars<'_>>) {
        self.prev = Some(c);
        if self.tags_left > 0 {
            self.tags_left -= 1;
            self.element = None;
            return;
        }
        self.element = match self.element {
            _ if is_pictographic(c) => Some(ZwjElement {
                vs: false,
                modifier: false,
            }),
            Some(e) if c == VS16 && admitted && !e.vs => Some(ZwjElement { vs: true, ..e }),
            Some(e) if !e.modifier && CodePointSetData::new::<EmojiModifier>().contains(c) => {
                Some(ZwjElement {
                    modifier: true,
                    ..e
                })
            }
            _ => None,
        };
        if c == TAG_BASE {
            self.tags_left = subdivision_flag_tags(rest.clone());
        }
    }
}

/// How many characters after a U+1F3F4 make an RGI subdivision flag's
/// tags, its U+E007F included ([`RGI_SUBDIVISION_FLAGS`]); 0 when they do
/// not. Reads at most [`MAX_SUBDIVISION_TAGS`] + 1 characters.
fn subdivision_flag_tags(rest: impl Iterator<Item = char>) -> usize {
    let mut id = String::new();
    for c in rest.take(MAX_SUBDIVISION_TAGS.saturating_add(1)) {
        if c == TAG_END {
            return if RGI_SUBDIVISION_FLAGS.contains(&id.as_str()) {
                id.len().saturating_add(1)
            } else {
                0
            };
        }
        match u32::from(c)
            .checked_sub(0xE0000)
            .filter(|a| (0x20..0x7F).contains(a))
            .and_then(char::from_u32)
        {
            Some(ascii) => id.push(ascii),
            None => return 0,
        }
    }
    0
}

/// U+200C ZERO WIDTH NON-JOINER.
const ZWNJ: char = '\u{200C}';
/// U+20E3 COMBINING ENCLOSING KEYCAP.
const KEYCAP: char = '\u{20E3}';

/// Where a text stands, read left to right by `poison::clean`: which of
/// the characters [`class`] flags are part of visible writing and stay.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Context {
    emoji: EmojiSequence,
    joiner: JoinerContext,
}

impl Context {
    /// `true` when `c`, followed by `rest`, is part of visible writing: an
    /// emoji sequence or a joiner in a context UAX #31 allows.
    pub(crate) fn admits(&self, c: char, rest: &std::iter::Peekable<std::str::Chars<'_>>) -> bool {
        self.emoji.admits(c, rest) || self.joiner.admits(c, rest)
    }

    /// Moves past `c` (`admitted` as [`Context::admits`] said), `rest`
    /// following it.
    pub(crate) fn step(
        &mut self,
        c: char,
        admitted: bool,
        rest: &std::iter::Peekable<std::str::Chars<'_>>,
    ) {
        self.emoji.step(c, admitted, rest);
        self.joiner.step(c, admitted);
    }
}

/// Where a text stands for the joiners of UAX #31 section 2.3.
#[derive(Debug, Clone, Copy, Default)]
struct JoinerContext {
    /// The last character that is not transparent (`Joining_Type` T) is a
    /// visible letter that joins the letter after it (`Joining_Type` L or
    /// D): a ZWNJ may follow (rule A1).
    joins_next: bool,
    /// The text ends with a visible letter, visible marks after it (`$L
    /// $M*`): a virama may follow it in rules A2 and B.
    in_cluster: bool,
    /// The text ends with a visible virama (`Canonical_Combining_Class` 9)
    /// after a letter and its marks, reordered marks after it (`$L $M* $V
    /// $M1*`): a ZWNJ or ZWJ may follow (rules A2, B).
    after_virama: bool,
}

fn joining_type(c: char) -> JoiningType {
    CodePointMapData::<JoiningType>::new().get(c)
}

fn combining_class(c: char) -> CanonicalCombiningClass {
    CodePointMapData::<CanonicalCombiningClass>::new().get(c)
}

impl JoinerContext {
    fn admits(&self, c: char, rest: &std::iter::Peekable<std::str::Chars<'_>>) -> bool {
        match c {
            ZWNJ => self.after_virama || (self.joins_next && joins_previous(rest.clone())),
            ZWJ => self.after_virama,
            _ => false,
        }
    }

    fn step(&mut self, c: char, admitted: bool) {
        if admitted && matches!(c, ZWNJ | ZWJ) {
            *self = Self::default();
            return;
        }
        let visible = class(c).is_none();
        let jt = joining_type(c);
        if jt != JoiningType::Transparent {
            self.joins_next =
                visible && matches!(jt, JoiningType::LeftJoining | JoiningType::DualJoining);
        }
        let ccc = combining_class(c);
        self.after_virama = visible
            && ((ccc == CanonicalCombiningClass::Virama && self.in_cluster)
                || (self.after_virama && ccc != CanonicalCombiningClass::NotReordered));
        let gc = CodePointMapData::<GeneralCategory>::new().get(c);
        let mark = matches!(
            gc,
            GeneralCategory::NonspacingMark
                | GeneralCategory::SpacingMark
                | GeneralCategory::EnclosingMark
        );
        let letter = matches!(
            gc,
            GeneralCategory::UppercaseLetter
                | GeneralCategory::LowercaseLetter
                | GeneralCategory::TitlecaseLetter
                | GeneralCategory::ModifierLetter
                | GeneralCategory::OtherLetter
        );
        self.in_cluster = visible && (letter || (self.in_cluster && mark));
    }
}

/// `true` when `rest`, past at most [`MAX_JOINER_LOOKAHEAD`] transparent
/// characters, starts with a visible letter that joins the letter before
/// it (`Joining_Type` R or D).
fn joins_previous(rest: impl Iterator<Item = char>) -> bool {
    for c in rest.take(MAX_JOINER_LOOKAHEAD.saturating_add(1)) {
        match joining_type(c) {
            JoiningType::Transparent => continue,
            JoiningType::RightJoining | JoiningType::DualJoining => return class(c).is_none(),
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{class, shown};
    use proptest::prelude::*;

    /// Something a reader does not see, as `shown` removes it whole: a
    /// hidden character of each class, or a whole terminal escape sequence.
    fn unseen() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                '\u{200B}',
                '\u{200E}',
                '\u{202E}',
                '\u{2066}',
                '\u{E0041}',
                '\u{E007F}',
                '\u{FE0F}',
                '\u{E0100}',
                '\u{AD}',
                '\u{2028}',
                '\u{2029}',
                '\u{3164}',
                '\u{34F}',
                '\u{FFF9}',
                '\u{E000}',
                '\u{FFFF}',
                '\u{7}',
                '\u{7F}',
                '\u{85}',
                '\u{9C}',
                '\u{16FE4}',
            ])
            .prop_map(String::from),
            // CSI with ESC or U+009B, its parameters and a final byte.
            ("[\u{1b}\u{9b}]", "[0-9;?]{0,6}", "[@A-Za-z~]").prop_map(|(lead, params, fin)| {
                if lead == "\u{1b}" {
                    format!("\u{1b}[{params}{fin}")
                } else {
                    format!("{lead}{params}{fin}")
                }
            }),
            // A control string (OSC, DCS, SOS, PM, APC) ended by BEL, ST
            // or U+009C, whatever it holds.
            (
                prop::sample::select(vec!["\u{1b}]", "\u{1b}P", "\u{1b}X", "\u{1b}^", "\u{1b}_"]),
                "[^\u{7}\u{9c}\u{1b}\u{18}\u{1a}]{0,12}",
                prop::sample::select(vec!["\u{7}", "\u{1b}\\", "\u{9c}"]),
            )
                .prop_map(|(open, body, end)| {
                    // BEL ends an OSC only.
                    let end = if end == "\u{7}" && open != "\u{1b}]" {
                        "\u{1b}\\"
                    } else {
                        end
                    };
                    format!("{open}{body}{end}")
                }),
            // ESC, intermediates, a final character (`ESC ( B`, `ESC M`).
            ("[ -/]{0,2}", "[0-9A-OQ-WYZ\\\\`a-z{|}~<=>?]")
                .prop_map(|(mid, fin)| format!("\u{1b}{mid}{fin}")),
        ]
    }

    /// Text a reader sees: no character `class` calls hidden.
    fn seen() -> impl Strategy<Value = String> {
        any::<String>().prop_map(|s| s.chars().filter(|&c| class(c).is_none()).collect())
    }

    proptest! {
        /// Exact oracle: visible text with unseen things put anywhere in it
        /// is shown as the visible text, and nothing else.
        #[test]
        fn shown_is_the_visible_text(
            visible in seen(),
            put in prop::collection::vec((any::<prop::sample::Index>(), unseen()), 1..6),
        ) {
            let mut text: Vec<String> = visible.chars().map(String::from).collect();
            for (at, what) in &put {
                let at = at.index(text.len() + 1);
                text.insert(at, what.clone());
            }
            let text = text.concat();
            let got = shown(&text);
            prop_assert_eq!(got.as_ref(), visible.as_str(), "{:?}", text);
            prop_assert!(matches!(got, std::borrow::Cow::Owned(_)));
        }

        /// Visible text is passed as it is, borrowed.
        #[test]
        fn visible_text_is_borrowed(visible in seen()) {
            let got = shown(&visible);
            prop_assert!(matches!(got, std::borrow::Cow::Borrowed(s) if s == visible));
        }

        /// Whatever the text, what is shown holds nothing hidden, in the
        /// text's order (a subsequence), and showing it again changes nothing.
        #[test]
        fn shown_holds_nothing_hidden(text in any::<String>()) {
            let got = shown(&text);
            prop_assert!(got.chars().all(|c| class(c).is_none()));
            let mut rest = text.chars();
            prop_assert!(got.chars().all(|c| rest.any(|t| t == c)));
            let again = shown(&got);
            prop_assert_eq!(again.as_ref(), got.as_ref());
        }
    }
}
