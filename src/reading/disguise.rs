//! Disguises for property tests: a text rewritten the ways a page can make it draw the same
//! and be stored otherwise. Its tables are written out from the Unicode charts by hand, apart
//! from the data `reading.rs` reads, so a test built on them does not grade the crates with
//! their own answers.

use proptest::prelude::*;

/// The mathematical alphanumeric styles: where the style's capital A stands, and the letters
/// Unicode had already encoded in Letterlike Symbols, which the style's run leaves out.
const STYLES: [(u32, &[(char, char)]); 13] = [
    (0x1d400, &[]),               // bold
    (0x1d434, &[('h', 'ℎ')]),     // italic
    (0x1d468, &[]),               // bold italic
    (0x1d49c, SCRIPT_LETTERLIKE), // script
    (0x1d4d0, &[]),               // bold script
    (
        0x1d504,
        &[('C', 'ℭ'), ('H', 'ℌ'), ('I', 'ℑ'), ('R', 'ℜ'), ('Z', 'ℨ')],
    ), // fraktur
    (0x1d538, DOUBLE_STRUCK_LETTERLIKE), // double-struck
    (0x1d56c, &[]),               // bold fraktur
    (0x1d5a0, &[]),               // sans-serif
    (0x1d5d4, &[]),               // sans-serif bold
    (0x1d608, &[]),               // sans-serif italic
    (0x1d63c, &[]),               // sans-serif bold italic
    (0x1d670, &[]),               // monospace
];

const SCRIPT_LETTERLIKE: &[(char, char)] = &[
    ('B', 'ℬ'),
    ('E', 'ℰ'),
    ('F', 'ℱ'),
    ('H', 'ℋ'),
    ('I', 'ℐ'),
    ('L', 'ℒ'),
    ('M', 'ℳ'),
    ('R', 'ℛ'),
    ('e', 'ℯ'),
    ('g', 'ℊ'),
    ('o', 'ℴ'),
];

const DOUBLE_STRUCK_LETTERLIKE: &[(char, char)] = &[
    ('C', 'ℂ'),
    ('H', 'ℍ'),
    ('N', 'ℕ'),
    ('P', 'ℙ'),
    ('Q', 'ℚ'),
    ('R', 'ℝ'),
    ('Z', 'ℤ'),
    ('d', 'ⅆ'),
    ('e', 'ⅇ'),
    ('i', 'ⅈ'),
    ('j', 'ⅉ'),
];

/// Letters of other scripts drawn like a Latin small letter, mathematical Greek among them.
const LOOK_ALIKES: &[(char, &[char])] = &[
    ('a', &['а', 'ɑ', 'α', '𝛂']),
    ('c', &['с', 'ϲ', 'ᴄ']),
    ('d', &['ԁ']),
    ('e', &['е', 'ҽ']),
    ('g', &['ɡ', 'ց']),
    ('h', &['һ', 'հ']),
    ('i', &['і', 'ι', 'ı', 'İ', '𝛊', 'ɩ']),
    ('j', &['ј', 'ϳ']),
    ('l', &['ӏ', 'ℓ']),
    ('n', &['ո']),
    ('o', &['о', 'ο', 'σ', '𝛐', '𝝄', 'օ', 'ᴏ']),
    ('p', &['р', 'ρ', '𝛒']),
    ('q', &['ԛ']),
    ('r', &['г', 'ᴦ']),
    ('s', &['ѕ', 'ꜱ']),
    ('u', &['ս', 'ᴜ']),
    ('v', &['ν', 'ѵ', '𝛎', 'ᴠ']),
    ('w', &['ԝ', 'ᴡ']),
    ('x', &['х', 'ᕁ']),
    ('y', &['у', 'ү']),
    ('z', &['ᴢ']),
];

/// Characters that draw nothing.
const INVISIBLE: &[char] = &[
    '\u{ad}',
    '\u{34f}',
    '\u{180b}',
    '\u{180c}',
    '\u{180d}',
    '\u{180e}',
    '\u{180f}',
    '\u{200b}',
    '\u{200c}',
    '\u{200d}',
    '\u{200e}',
    '\u{2060}',
    '\u{2061}',
    '\u{2064}',
    '\u{3164}',
    '\u{fe00}',
    '\u{fe0f}',
    '\u{feff}',
    '\u{ffa0}',
    '\u{e0020}',
    '\u{e0041}',
    '\u{e007f}',
    '\u{e0100}',
    '\u{e01ef}',
];

/// What may stand between two words and still read as a space between them.
const BETWEEN_WORDS: &[&str] = &[
    " ",
    "  ",
    " \n ",
    "-",
    "_",
    "\u{a0}",
    "\u{2003}",
    "\u{3000}",
    " / ",
    "\u{200b} ",
];

/// How one letter is written.
#[derive(Debug, Clone)]
pub(crate) struct Letter {
    form: u8,
    pick: u8,
    capital: bool,
    mark: Option<u8>,
    invisible_after: Option<u8>,
}

/// How a whole text is written: a form for each letter, what stands between its words, and
/// what wraps it.
#[derive(Debug, Clone)]
pub(crate) struct Disguise {
    letters: Vec<Letter>,
    between: Vec<u8>,
    wrap: u8,
}

pub(crate) fn disguise() -> impl Strategy<Value = Disguise> {
    let letter = (
        0u8..6,
        any::<u8>(),
        any::<bool>(),
        prop::option::weighted(0.2, any::<u8>()),
        prop::option::weighted(0.2, any::<u8>()),
    )
        .prop_map(|(form, pick, capital, mark, invisible_after)| Letter {
            form,
            pick,
            capital,
            mark,
            invisible_after,
        });
    (
        prop::collection::vec(letter, 64),
        prop::collection::vec(any::<u8>(), 8),
        0u8..5,
    )
        .prop_map(|(letters, between, wrap)| Disguise {
            letters,
            between,
            wrap,
        })
}

impl Disguise {
    /// `text` (lower-case ASCII letters and spaces) as this disguise writes it, and how it is
    /// drawn: the same letters, whatever the stored order and characters.
    pub(crate) fn write(&self, text: &str) -> String {
        let reversed = self.wrap == 1 || self.wrap == 2;
        let mut shown = String::new();
        let mut letters = self.letters.iter().cycle();
        let mut gaps = self.between.iter().cycle();
        for (i, word) in text.split(' ').enumerate() {
            if i > 0 {
                let gap = BETWEEN_WORDS[usize::from(*gaps.next().unwrap()) % BETWEEN_WORDS.len()];
                // A line break ends an override: a reversed text keeps to one line.
                shown.push_str(if reversed && gap.contains('\n') {
                    " "
                } else {
                    gap
                });
            }
            for c in word.chars() {
                letters.next().unwrap().write(c, &mut shown);
            }
        }
        // The stored text of an override is drawn turned round: store it turned round, and
        // it is drawn the right way.
        let turned = || shown.chars().rev().collect::<String>();
        match self.wrap {
            1 => format!("\u{202e}{}\u{202c}", turned()),
            2 => format!(
                "Note: \u{2067}\u{202e}{}\u{202c}\u{2069} then go on",
                turned()
            ),
            3 => format!("\u{202d}{shown}\u{202c}"),
            4 => format!("Please read: {shown}. Thank you"),
            _ => shown,
        }
    }
}

impl Letter {
    fn write(&self, c: char, out: &mut String) {
        let pick = usize::from(self.pick);
        match self.form {
            1 => {
                let (base, letterlike) = STYLES[pick % STYLES.len()];
                let c = if self.capital {
                    c.to_ascii_uppercase()
                } else {
                    c
                };
                match letterlike.iter().find(|(letter, _)| *letter == c) {
                    Some((_, drawn)) => out.push(*drawn),
                    None => {
                        let index = if c.is_ascii_uppercase() {
                            c as u32 - 'A' as u32
                        } else {
                            26 + c as u32 - 'a' as u32
                        };
                        out.push(char::from_u32(base + index).expect("a styled letter"));
                    }
                }
            }
            2 => {
                let width = if self.capital { 0xff21 } else { 0xff41 };
                out.push(char::from_u32(width + (c as u32 - 'a' as u32)).expect("full width"));
            }
            3 => match LOOK_ALIKES.iter().find(|(letter, _)| *letter == c) {
                Some((_, alikes)) => out.push(alikes[pick % alikes.len()]),
                None => out.push(c),
            },
            4 => {
                let circled = if self.capital { 0x24b6 } else { 0x24d0 };
                out.push(char::from_u32(circled + (c as u32 - 'a' as u32)).expect("circled"));
            }
            _ if self.capital => out.push(c.to_ascii_uppercase()),
            _ => out.push(c),
        }
        if let Some(mark) = self.mark {
            // A combining mark over the letter (grave to Latin small x): `ï`, `ò`.
            out.push(char::from_u32(0x300 + u32::from(mark) % 0x70).expect("a mark"));
        }
        if let Some(i) = self.invisible_after {
            out.push(INVISIBLE[usize::from(i) % INVISIBLE.len()]);
        }
    }
}
