//! MIME decoding and text normalisation: the subject, text and HTML parts of a message as
//! strings (ISO-2022-JP included), and lines of normalised characters.

use mail_parser::{MessageParser, PartType};

/// Parts bigger than this are cut (a verification mail is small; this bounds the work).
const MAX_PART_CHARS: usize = 400_000;

#[derive(Default)]
pub(super) struct Decoded {
    pub(super) subject: String,
    pub(super) texts: Vec<String>,
    pub(super) htmls: Vec<String>,
}

pub(super) fn decode(raw: &[u8]) -> Option<Decoded> {
    let msg = MessageParser::default().parse(raw)?;
    let mut out = Decoded {
        subject: iso2022jp_fallback(msg.subject().unwrap_or_default()),
        ..Decoded::default()
    };
    let mut seen: Vec<u32> = Vec::new();
    for id in msg.text_body.iter().chain(msg.html_body.iter()) {
        if seen.contains(id) {
            continue;
        }
        seen.push(*id);
        match msg.parts.get(*id as usize).map(|p| &p.body) {
            Some(PartType::Text(t)) => out.texts.push(iso2022jp_fallback(&cap(t))),
            Some(PartType::Html(h)) => out.htmls.push(iso2022jp_fallback(&cap(h))),
            _ => {}
        }
    }
    Some(out)
}

/// JIS X 0208 row 1 (punctuation), indexed by the second byte minus 0x21.
const JIS_ROW1: &str = "\u{3000}、。，．・：；？！゛゜´｀¨＾￣＿ヽヾゝゞ〃仝々〆〇ー―‐／＼〜‖｜…‥‘’“”（）〔〕［］｛｝〈〉《》「」『』【】＋−±×÷＝≠＜＞≦≧∞∴♂♀°′″℃￥＄¢£％＃＆＊＠§☆★○●◎◇";
/// The few kanji the keyword tables use (認証コード, 暗証番号, 注文, 請求, 金額, 電話…).
const JIS_KANJI: &[(u16, char)] = &[
    (0x3045, '暗'),
    (0x334E, '確'),
    (0x335B, '額'),
    (0x347C, '期'),
    (0x3561, '求'),
    (0x3662, '金'),
    (0x3757, '計'),
    (0x3842, '限'),
    (0x387A, '効'),
    (0x3966, '号'),
    (0x3967, '合'),
    (0x3E5A, '証'),
    (0x4041, '請'),
    (0x436D, '注'),
    (0x4545, '電'),
    (0x4727, '認'),
    (0x4856, '番'),
    (0x4A38, '文'),
    (0x4D2D, '有'),
    (0x4F43, '話'),
];

/// mail-parser is built without `full_encoding`, so ISO-2022-JP parts arrive undecoded (escape
/// sequences and 7-bit JIS pairs). This decodes what extraction needs — ASCII, kana, full-width
/// letters and digits, punctuation and a few keyword kanji — and turns other kanji into `〓`.
fn iso2022jp_fallback(s: &str) -> String {
    if !s.contains("\u{1b}$B") && !s.contains("\u{1b}$@") {
        return s.to_string();
    }
    #[derive(PartialEq)]
    enum Mode {
        Ascii,
        Jis,
        HalfKana,
    }
    let mut mode = Mode::Ascii;
    let mut out = String::with_capacity(s.len());
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == 0x1b {
            let seq = &bytes[i + 1..bytes.len().min(i + 3)];
            match seq {
                b"$B" | b"$@" => mode = Mode::Jis,
                b"(B" | b"(J" => mode = Mode::Ascii,
                b"(I" => mode = Mode::HalfKana,
                _ => {
                    i += 1;
                    continue;
                }
            }
            i += 3;
            continue;
        }
        if b == b'\r' || b == b'\n' || b >= 0x80 {
            // line breaks reset nothing in ISO-2022-JP, but never sit inside a pair
            let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        match mode {
            Mode::Ascii => {
                out.push(b as char);
                i += 1;
            }
            Mode::HalfKana => {
                out.push(
                    char::from_u32(0xff61 + u32::from(b.saturating_sub(0x21))).unwrap_or('〓'),
                );
                i += 1;
            }
            Mode::Jis => {
                let Some(&b2) = bytes.get(i + 1).filter(|b2| (0x21..0x7f).contains(*b2)) else {
                    out.push(if b == b' ' { ' ' } else { '〓' });
                    i += 1;
                    continue;
                };
                let (row, cell) = (b, u32::from(b2.wrapping_sub(0x21)));
                let ch = match row {
                    0x21 => JIS_ROW1.chars().nth(cell as usize),
                    0x23 => char::from_u32(0xff10 + u32::from(b2.wrapping_sub(0x30)))
                        .filter(|_| b2.is_ascii_alphanumeric()),
                    0x24 => char::from_u32(0x3041 + cell).filter(|_| b2 <= 0x73),
                    0x25 => char::from_u32(0x30a1 + cell).filter(|_| b2 <= 0x76),
                    _ => JIS_KANJI
                        .iter()
                        .find(|(code, _)| *code == u16::from(row) << 8 | u16::from(b2))
                        .map(|(_, c)| *c),
                };
                out.push(ch.unwrap_or('〓'));
                i += 2;
            }
        }
    }
    out
}

fn cap(s: &str) -> String {
    match s.char_indices().nth(MAX_PART_CHARS) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// Maps a character to its normalised form: `None` drops what draws nothing (Unicode's
/// default-ignorable code points: zero-width characters, soft hyphens, variation selectors…),
/// spaces of every kind become `' '`, hyphen variants `'-'`, full-width ASCII ASCII.
pub(super) fn norm_char(c: char) -> Option<char> {
    match c {
        c if crate::reading::draws_nothing(c) => None,
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2212}' => Some('-'),
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0),
        c if c.is_whitespace() => Some(' '),
        c => Some(c),
    }
}

/// One line of text (a text-part line, an HTML block, or the subject) with the character
/// ranges that sit in prominent elements (bold, headings, big font…).
#[derive(Debug, Clone, Default)]
pub(super) struct Block {
    pub(super) chars: Vec<char>,
    pub(super) prominent: Vec<(usize, usize)>,
    /// Someone else wrote this line: a quotation or a note another user typed
    /// ([`super::quoted`]).
    pub(super) quoted: bool,
    /// The line is a code laid out one character per box (`<td>4</td><td>8</td>…`), joined.
    pub(super) one_apart: bool,
}

impl Block {
    pub(super) fn from_line(line: &str) -> Block {
        let mut chars = Vec::with_capacity(line.len());
        for c in line.chars().filter_map(norm_char) {
            if c == ' ' && (chars.is_empty() || chars.last() == Some(&' ')) {
                continue;
            }
            chars.push(c);
        }
        while chars.last() == Some(&' ') {
            chars.pop();
        }
        Block {
            chars,
            prominent: Vec::new(),
            quoted: false,
            one_apart: false,
        }
    }

    pub(super) fn text(&self) -> String {
        self.chars.iter().collect()
    }
}

/// The non-empty lines of a text part, each marked when it is quoted.
pub(super) fn text_blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let quoted = super::quoted::quoted_lines(&lines);
    lines
        .iter()
        .zip(quoted)
        .map(|(line, quoted)| Block {
            quoted,
            ..Block::from_line(line)
        })
        .filter(|b| !b.chars.is_empty())
        .collect()
}

/// A character a code is made of. The HTML box reader and the candidate scan must agree on it.
pub(super) fn is_code_char(c: char) -> bool {
    c.is_ascii_digit() || c.is_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_2022_jp_parts_are_decoded_enough() {
        assert_eq!(
            iso2022jp_fallback("\u{1b}$B%o%s%?%$%`%Q%9%o!<%I!'\u{1b}(B350718"),
            "ワンタイムパスワード：350718"
        );
        assert_eq!(iso2022jp_fallback("\u{1b}$BG'>Z\u{1b}(B"), "認証");
        // broken input: no panic, unknown kanji become 〓
        let _ = iso2022jp_fallback("\u{1b}$B%\u{e9}\u{1b}(");
        assert_eq!(iso2022jp_fallback("plain"), "plain");
    }
}
