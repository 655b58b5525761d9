//! Text as a person reads it, decided by Unicode's own data rather than by lists of our own:
//! the order a line is shown in, the characters that draw nothing or rearrange a line, and
//! the letters that look alike. The instruction counter reads through it; the terminal
//! escapes by it.

use std::borrow::Cow;
use std::collections::HashMap;

use icu_properties::props::{BidiControl, DefaultIgnorableCodePoint, GeneralCategory};
use icu_properties::{CodePointMapData, CodePointSetData};
use unicode_bidi::{BidiClass, BidiInfo};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

#[cfg(test)]
pub(crate) mod disguise;

/// `text` in the order it is shown, paragraph by paragraph (the Unicode Bidirectional
/// Algorithm, UAX #9): a right-to-left override around `snoitcurtsni` shows, and so reads,
/// `instructions`. Borrowed when nothing in `text` is shown out of its stored order. The
/// controls themselves stay in; [`letters_as_read`] drops them.
pub(crate) fn shown_order(text: &str) -> Cow<'_, str> {
    // Only a right-to-left letter or a control can put a character out of its stored order;
    // most text has neither, and the algorithm's tables cost a few bytes per byte.
    if !text.chars().any(may_reorder) {
        return Cow::Borrowed(text);
    }
    let info = BidiInfo::new(text, None);
    if !info.has_rtl() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        info.paragraphs
            .iter()
            .map(|p| info.reorder_line(p, p.range.clone()))
            .collect(),
    )
}

fn may_reorder(c: char) -> bool {
    use BidiClass::{AL, AN, FSI, LRE, LRI, LRO, PDF, PDI, R, RLE, RLI, RLO};
    matches!(
        unicode_bidi::bidi_class(c),
        R | AL | AN | RLE | RLO | RLI | LRE | LRO | LRI | FSI | PDF | PDI
    )
}

/// The letters of `text` as a reader takes them, in stored order, so that two texts that read
/// alike come out the same:
/// - compatibility forms as the letters they are drawn from (NFKC: `𝐢`, `ℐ`, `ⅈ`, `ｉ`, `ﬁ`);
/// - lower case;
/// - look-alikes as the letter they imitate (the confusables skeleton of Unicode TS #39:
///   Cyrillic `о`, Greek `ι`, dotless `ı`), read again until the reading stays;
/// - marks over letters dropped (`İ`, `ï`), and every character that draws nothing
///   (Default_Ignorable_Code_Point: zero-width characters, the soft hyphen, variation
///   selectors, bidirectional controls, tags).
///
/// Other characters stay, so words keep their spaces and punctuation. A skeleton is for
/// comparing: `m` reads as `rn` in it, so compare a text only with another text read here.
pub(crate) fn letters_as_read(text: &str) -> String {
    read(text, false)
}

/// The words of `text` as [`letters_as_read`] reads them, with a space for every character
/// between them (punctuation, symbols, spaces), judged before it is read: `ignore|previous`
/// is two words, though `|` alone reads as `l`.
pub(crate) fn words_as_read(text: &str) -> String {
    read(text, true)
}

fn read(text: &str, words_only: bool) -> String {
    let mut out = String::with_capacity(text.len());
    // A text uses few distinct characters, and reading one takes a few table look-ups.
    let mut known: HashMap<char, String> = HashMap::new();
    for c in text.chars() {
        if c.is_ascii_lowercase() && c != 'm' {
            // Most text: a small Latin letter is its own prototype (but `m`, read `rn`).
            out.push(c);
        } else if words_only && !(c.is_alphanumeric() || draws_nothing(c) || is_combining_mark(c)) {
            out.push(' ');
        } else {
            out.push_str(known.entry(c).or_insert_with(|| read_char(c, READINGS)));
        }
    }
    out
}

/// How many times a character's reading is read again, at most, until it stays: a
/// prototype is sometimes a capital or a compatibility form that reads as another letter.
const READINGS: u8 = 4;

/// `c` as read: nothing for a mark or a character that draws nothing; else its NFKC form in
/// lower case, as the prototype its skeleton gives. When that is no Latin letter, but `c`'s
/// own skeleton is one, the skeleton's: NFKC makes a few look-alikes other letters (the lunate
/// sigma `ϲ`, drawn as `c`, becomes a final sigma), while the skeleton alone reads capitals
/// as other letters (`𝐈` as `l`), so the compatibility form goes first where it can.
fn read_char(c: char, depth: u8) -> String {
    if draws_nothing(c) || is_combining_mark(c) {
        return String::new();
    }
    if depth == 0 {
        return c.to_lowercase().collect();
    }
    let form: String = std::iter::once(c).nfkc().collect();
    let by_form = if form.chars().eq([c]) {
        prototype(c, depth)
    } else {
        form.chars().map(|f| read_char(f, depth - 1)).collect()
    };
    if by_form.is_ascii() {
        return by_form;
    }
    let by_look = prototype(c, depth);
    if by_look.is_ascii() { by_look } else { by_form }
}

/// `c` in lower case, as the prototype its skeleton (Unicode TS #39) gives, read again.
fn prototype(c: char, depth: u8) -> String {
    let mut out = String::new();
    let mut one = [0u8; 4];
    // Lower case writes `İ` as `i` and a combining dot: the dot goes as every mark does.
    for lower in c.to_lowercase().filter(|l| !is_combining_mark(*l)) {
        let skeleton: String = unicode_security::skeleton(lower.encode_utf8(&mut one)).collect();
        if skeleton.chars().eq([lower]) {
            out.push(lower);
        } else {
            for p in skeleton.chars() {
                out.push_str(&read_char(p, depth - 1));
            }
        }
    }
    out
}

/// Whether `c` draws nothing where it stands (Unicode's Default_Ignorable_Code_Point).
pub(crate) fn draws_nothing(c: char) -> bool {
    CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// Whether `c` changes where the text after it is shown: a control that reorders a line
/// (Unicode's Bidi_Control: overrides, embeddings, isolates and the directional marks) or a
/// line or paragraph separator (U+2028, U+2029), which some terminals and editors break on.
pub(crate) fn rearranges_lines(c: char) -> bool {
    CodePointSetData::new::<BidiControl>().contains(c)
        || matches!(
            CodePointMapData::<GeneralCategory>::new().get(c),
            GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_is_read_the_way_it_is_shown() {
        let shown = shown_order("Note: \u{202e}snoitcurtsni\u{202c} end");
        let drawn: String = shown.chars().filter(|c| !draws_nothing(*c)).collect();
        assert_eq!(drawn, "Note: instructions end");
        assert!(matches!(shown_order("plain text"), Cow::Borrowed(_)));
        // Latin inside right-to-left text keeps its order.
        assert!(shown_order("שלום ignore this").contains("ignore this"));
    }

    #[test]
    fn look_alikes_read_as_the_letters_they_imitate() {
        let plain = letters_as_read("ignore");
        for disguised in [
            "IGNORE",
            "іgnоrе",       // Cyrillic і, о, е
            "𝐢𝐠𝐧𝐨𝐫𝐞",       // mathematical bold
            "ℐℊ𝓃ℴ𝓇ℯ",       // script, from Letterlike Symbols and the mathematical block
            "ⅈ𝕘ℕ𝕠ℝⅇ",       // double-struck
            "𝛊gn𝛐re",       // mathematical Greek
            "İGNORE",       // Turkish dotted capital I
            "ıgnore",       // dotless i
            "ｉｇｎｏｒｅ", // full width
            "ig\u{180b}n\u{ad}o\u{200b}r\u{fe0f}e\u{e0041}",
            "i\u{308}gn\u{301}ore",
        ] {
            assert_eq!(letters_as_read(disguised), plain, "{disguised}");
        }
        assert_ne!(letters_as_read("ignite"), plain);
        assert_eq!(letters_as_read("a-b c"), "a-b c");
    }

    #[test]
    fn what_rearranges_a_line_is_known_by_its_property() {
        for c in [
            '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}',
            '\u{2028}', '\u{2029}',
        ] {
            assert!(rearranges_lines(c), "{c:?}");
        }
        for c in ['a', ' ', '\u{200b}', 'é', 'א'] {
            assert!(!rearranges_lines(c), "{c:?}");
        }
        assert!(draws_nothing('\u{180b}') && draws_nothing('\u{200b}') && !draws_nothing('a'));
    }
}
