//! OTP and verification-link extraction from raw RFC 5322 messages (SPEC §2): pure functions,
//! no I/O. MIME is decoded with mail-parser, HTML with scraper; candidates are scored.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use mail_parser::{MessageParser, PartType};
use scraper::{ElementRef, Html, Node};
use url::Url;

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/// Where in the message a one-time code was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OtpSource {
    /// The decoded `Subject` header.
    Subject,
    /// A `text/plain` body part.
    Text,
    /// A `text/html` body part.
    Html,
}

/// A one-time code found in a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Otp {
    /// The code as the message shows it, separator included (`G-482913`, `482 913`, `4X7-K2P`).
    /// Codes laid out one character per box (`<td>4</td><td>8</td>…`) are joined.
    pub code: String,
    /// The code without its separator (`G482913`, `482913`, `4X7K2P`).
    pub compact: String,
    /// Which part of the message the code was taken from.
    pub source: OtpSource,
}

/// The verification / magic / sign-in link chosen from a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The absolute http(s) URL to open, with known wrappers (Outlook Safe Links, `?url=`
    /// redirectors) already removed. Accepted by the caller's `allowed` predicate.
    pub url: Url,
    /// The anchor's text (or `alt` text of its image); for a bare URL, the text just before it.
    pub anchor_text: String,
    /// How strongly the message marks this link as the one to follow (higher is better, > 0).
    pub score: i32,
}

/// Why [`find_link`] returned no link.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// The message holds no http(s) link that looks like a verification, magic or sign-in link.
    #[error("the message has no verification, magic or sign-in link")]
    NoCandidates,
    /// Such links exist, but every one of them is refused by the run's lock. `candidates` lists
    /// them (unwrapped), best first, so the caller can word the refusal.
    #[error("every verification link in the message leads outside the hosts this run may visit")]
    OnlyOutside {
        /// The refused links, best first.
        candidates: Vec<Url>,
    },
}

/// Finds the one-time code in a raw message, or `None` when nothing is marked as a code.
///
/// `recipient` is this run's own address: digits inside it (`test+1234@…`) are never a code.
/// Looks at the subject, the text parts and the HTML parts. A candidate counts only when the
/// message marks it (a code keyword next to it in one of several languages, set apart on its
/// own line, in a prominent element, or in the subject); strongly marked candidates win, then
/// the subject over the text part over HTML, then the finer score. Years, prices,
/// phone numbers, dates, order/invoice numbers, addresses, CSS colours, `<style>` contents and
/// digits inside URLs or e-mail addresses are never returned. Malformed MIME returns `None`.
pub fn find_otp(raw: &[u8], recipient: &str) -> Option<Otp> {
    catch_unwind(AssertUnwindSafe(|| find_otp_inner(raw, recipient)))
        .ok()
        .flatten()
}

/// Picks the verification / magic / sign-in link of a raw message.
///
/// Anchors and bare URLs of the HTML and text parts are scored by anchor text and URL words
/// (verify, confirm, activate, magic, sign in, log in, token, reset…); unsubscribe, privacy,
/// help, terms, preferences, support, social, image and pixel links, and anything that is not
/// http(s), are never candidates. Known wrappers (Outlook Safe Links, redirectors carrying the
/// target in `url=`/`u=`/`redirect=`/`target=`) are unwrapped first; tracking redirects that
/// hide the target are kept as they are. `allowed` is the run's plan lock: a candidate for
/// which it returns false is never chosen; when only such candidates exist the result is
/// [`LinkError::OnlyOutside`]. Malformed MIME returns [`LinkError::NoCandidates`].
pub fn find_link(raw: &[u8], allowed: &dyn Fn(&Url) -> bool) -> Result<Link, LinkError> {
    let scored = catch_unwind(AssertUnwindSafe(|| link_candidates(raw))).unwrap_or_default();
    let mut outside: Vec<Url> = Vec::new();
    for cand in scored {
        if allowed(&cand.url) {
            return Ok(Link {
                url: cand.url,
                anchor_text: cand.anchor_text,
                score: cand.score,
            });
        }
        outside.push(cand.url);
    }
    if outside.is_empty() {
        Err(LinkError::NoCandidates)
    } else {
        Err(LinkError::OnlyOutside {
            candidates: outside,
        })
    }
}

/// Masks a code for events and logs: at most the first two characters stay readable (one for
/// codes shorter than six characters), every other letter or digit becomes `•`, separators stay.
/// `"482913"` → `"48••••"`, `"G-482913"` → `"G-••••••"`, `"4821"` → `"4•••"`.
pub fn mask_code(code: &str) -> String {
    let total = code.chars().count();
    let keep = if total >= 6 { 2 } else { 1 };
    code.chars()
        .enumerate()
        .map(|(i, c)| {
            if i < keep || !c.is_alphanumeric() {
                c
            } else {
                '•'
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// MIME decoding and text normalisation
// ---------------------------------------------------------------------------------------------

/// Parts bigger than this are cut (a verification mail is small; this bounds the work).
const MAX_PART_CHARS: usize = 400_000;

#[derive(Default)]
struct Decoded {
    subject: String,
    texts: Vec<String>,
    htmls: Vec<String>,
}

fn decode(raw: &[u8]) -> Option<Decoded> {
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

/// Maps a character to its normalised form: `None` drops it (zero-width characters, soft
/// hyphens), spaces of every kind become `' '`, hyphen variants `'-'`, full-width ASCII ASCII.
fn norm_char(c: char) -> Option<char> {
    match c {
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{00ad}'
        | '\u{034f}' => None,
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2212}' => Some('-'),
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0),
        c if c.is_whitespace() => Some(' '),
        c => Some(c),
    }
}

/// One line of text (a text-part line, an HTML block, or the subject) with the character
/// ranges that sit in prominent elements (bold, headings, big font…).
#[derive(Debug, Clone, Default)]
struct Block {
    chars: Vec<char>,
    prominent: Vec<(usize, usize)>,
}

impl Block {
    fn from_line(line: &str) -> Block {
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
        }
    }

    fn text(&self) -> String {
        self.chars.iter().collect()
    }
}

fn text_blocks(text: &str) -> Vec<Block> {
    text.lines()
        .map(Block::from_line)
        .filter(|b| !b.chars.is_empty())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// HTML rendering: blocks of visible text, prominent ranges, anchors
// ---------------------------------------------------------------------------------------------

/// Elements whose text is never visible mail content.
const SKIPPED: &[&str] = &[
    "head", "style", "script", "title", "template", "noscript", "svg", "xml", "object",
];

/// Elements that start and end a line of text.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "center",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "html",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
];

#[derive(Debug, Clone)]
struct AnchorOcc {
    href: String,
    text: String,
    /// Index of the block the anchor ended in (may equal `blocks.len()` transiently).
    block: usize,
    button: bool,
}

#[derive(Default)]
struct Rendered {
    blocks: Vec<Block>,
    anchors: Vec<AnchorOcc>,
}

#[derive(Default)]
struct Renderer {
    out: Rendered,
    cur: Vec<char>,
    prom: Vec<(usize, usize)>,
    prom_depth: usize,
    anchor: Option<(String, String, String, bool)>, // href, text, image alt, button
}

impl Renderer {
    fn flush(&mut self) {
        while self.cur.last() == Some(&' ') {
            self.cur.pop();
        }
        if !self.cur.is_empty() {
            let len = self.cur.len();
            let prominent = std::mem::take(&mut self.prom)
                .into_iter()
                .map(|(a, b)| (a, b.min(len)))
                .filter(|(a, b)| a < b)
                .collect();
            self.out.blocks.push(Block {
                chars: std::mem::take(&mut self.cur),
                prominent,
            });
        }
        self.cur.clear();
        self.prom.clear();
    }

    fn push_char(&mut self, c: char) {
        if c == ' ' && (self.cur.is_empty() || self.cur.last() == Some(&' ')) {
            return;
        }
        let at = self.cur.len();
        self.cur.push(c);
        if self.prom_depth > 0 {
            match self.prom.last_mut() {
                Some((_, end)) if *end == at => *end = at + 1,
                _ => {
                    if c != ' ' {
                        self.prom.push((at, at + 1));
                    }
                }
            }
        }
    }

    fn text(&mut self, s: &str) {
        for c in s.chars().filter_map(norm_char) {
            self.push_char(c);
            if let Some((_, text, _, _)) = self.anchor.as_mut()
                && (c != ' ' || text.chars().last().is_some_and(|l| l != ' '))
            {
                text.push(c);
            }
        }
    }

    /// A synthetic, fully prominent line (split-digit layouts).
    fn push_whole(&mut self, code: String) {
        self.flush();
        let chars: Vec<char> = code.chars().collect();
        let len = chars.len();
        self.out.blocks.push(Block {
            chars,
            prominent: vec![(0, len)],
        });
    }

    fn open(&mut self, el: &scraper::node::Element) {
        let name = el.name();
        if BLOCKS.contains(&name) {
            self.flush();
        }
        if is_prominent(el) {
            self.prom_depth += 1;
        }
        if name == "a"
            && self.anchor.is_none()
            && let Some(href) = el.attr("href")
        {
            self.anchor = Some((
                href.to_string(),
                String::new(),
                String::new(),
                is_button(el),
            ));
        }
        if name == "img"
            && let (Some((_, _, alt, _)), Some(a)) = (self.anchor.as_mut(), el.attr("alt"))
        {
            if !alt.is_empty() {
                alt.push(' ');
            }
            alt.push_str(a.trim());
        }
    }

    fn close(&mut self, el: &scraper::node::Element) {
        let name = el.name();
        if name == "a"
            && let Some((href, text, alt, button)) = self.anchor.take()
        {
            let text = text.trim();
            let text = if text.is_empty() { alt.trim() } else { text };
            let block = self.out.blocks.len();
            self.out.anchors.push(AnchorOcc {
                href,
                text: text.to_string(),
                block,
                button,
            });
        }
        if is_prominent(el) {
            self.prom_depth = self.prom_depth.saturating_sub(1);
        }
        if BLOCKS.contains(&name) {
            self.flush();
        }
    }
}

/// Beyond this nesting depth html5ever's tree builder turns quadratic (seconds per message),
/// so hostile or broken markup is read by [`render_html_flat`] instead.
const MAX_NESTING: usize = 1500;

/// A cheap upper bound of the element nesting depth (tags that close themselves implicitly in
/// HTML, like `<p>` or `<td>`, are not counted).
fn nesting_depth(html: &str) -> usize {
    const VOID: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr", "p", "li", "td", "th", "tr", "option", "dt", "dd",
    ];
    let b = html.as_bytes();
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'<' {
            let closing = b[i + 1] == b'/';
            let start = i + 1 + usize::from(closing);
            let mut end = start;
            while end < b.len() && b[end].is_ascii_alphanumeric() {
                end += 1;
            }
            if end > start && b[start].is_ascii_alphabetic() {
                let name = html[start..end].to_ascii_lowercase();
                let self_closing = b[end..]
                    .iter()
                    .take(200)
                    .position(|&c| c == b'>')
                    .is_some_and(|gt| gt > 0 && b[end + gt - 1] == b'/');
                if !VOID.contains(&name.as_str()) && !self_closing {
                    if closing {
                        depth = depth.saturating_sub(1);
                    } else {
                        depth += 1;
                        max = max.max(depth);
                    }
                }
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    max
}

/// Decodes the character references a flat reading needs.
fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        let end = rest
            .char_indices()
            .take(12)
            .find(|&(_, c)| c == ';')
            .map(|(i, _)| i);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let ch = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                "zwnj" => Some('\u{200c}'),
                "copy" => Some('©'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            ch.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A flat reading of markup too deeply nested for a tree: tags split lines, `<style>`,
/// `<script>` and `<head>` are dropped, anchors keep their href and text. No prominence.
fn render_html_flat(html: &str) -> Rendered {
    let mut r = Renderer::default();
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    while i < html.len() {
        let Some(lt) = html[i..].find('<').map(|p| i + p) else {
            r.text(&decode_entities(&html[i..]));
            break;
        };
        r.text(&decode_entities(&html[i..lt]));
        let Some(gt) = html[lt..].find('>').map(|p| lt + p) else {
            break;
        };
        let tag = &html[lt + 1..gt];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        i = gt + 1;
        if !closing && SKIPPED.contains(&name.as_str()) {
            // skip to the matching close tag
            let close = format!("</{name}");
            i = lower[i..].find(&close).map_or(html.len(), |p| i + p);
            continue;
        }
        if BLOCKS.contains(&name.as_str()) {
            r.flush();
        }
        if name == "a" {
            if closing {
                if let Some((href, text, _, _)) = r.anchor.take() {
                    let block = r.out.blocks.len();
                    r.out.anchors.push(AnchorOcc {
                        href,
                        text: text.trim().to_string(),
                        block,
                        button: false,
                    });
                }
            } else if let Some(href) = attr_value(tag, "href") {
                r.anchor = Some((decode_entities(&href), String::new(), String::new(), false));
            }
        }
    }
    r.flush();
    r.out
}

/// The value of attribute `name` inside a raw start tag (`a href="…" class=x`).
fn attr_value(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find(name) {
        let at = from + p;
        from = at + name.len();
        let before_ok = at == 0 || lower.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = lower[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value_start = tag.len() - rest.len() + 1;
        let v = tag[value_start..].trim_start();
        let value = match v.chars().next() {
            Some(q @ ('"' | '\'')) => v[1..].split(q).next().unwrap_or_default(),
            _ => v
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or_default(),
        };
        return Some(value.to_string());
    }
    None
}

fn render_html(html: &str) -> Rendered {
    if nesting_depth(html) > MAX_NESTING {
        return render_html_flat(html);
    }
    let doc = Html::parse_document(html);
    let mut r = Renderer::default();
    let mut stack = vec![(doc.tree.root(), false)];
    while let Some((node, exiting)) = stack.pop() {
        match node.value() {
            Node::Text(t) => r.text(t),
            Node::Element(el) => {
                if exiting {
                    r.close(el);
                    continue;
                }
                if SKIPPED.contains(&el.name()) {
                    continue;
                }
                if let Some(code) = ElementRef::wrap(node).and_then(split_code) {
                    r.push_whole(code);
                    continue;
                }
                r.open(el);
                stack.push((node, true));
                let kids: Vec<_> = node.children().collect();
                stack.extend(kids.into_iter().rev().map(|k| (k, false)));
            }
            Node::Document | Node::Fragment if !exiting => {
                let kids: Vec<_> = node.children().collect();
                stack.extend(kids.into_iter().rev().map(|k| (k, false)));
            }
            _ => {}
        }
    }
    r.flush();
    r.out
}

/// A code laid out one character per element (`<td>4</td><td>8</td>…`, `<span>` boxes):
/// returns the joined code when `el` has 4–10 such children and no other text.
fn split_code(el: ElementRef<'_>) -> Option<String> {
    let mut code = String::new();
    let mut boxes = 0;
    for child in el.children() {
        match child.value() {
            Node::Text(t) if t.chars().filter_map(norm_char).any(|c| c != ' ') => {
                return None;
            }
            Node::Element(_) => {
                let child = ElementRef::wrap(child)?;
                if SKIPPED.contains(&child.value().name()) {
                    continue;
                }
                let mut chars = String::new();
                for piece in child.text() {
                    for c in piece.chars().filter_map(norm_char).filter(|&c| c != ' ') {
                        chars.push(c);
                        if chars.chars().count() > 1 {
                            return None;
                        }
                    }
                }
                match chars.chars().next() {
                    None => {}
                    Some(c) if is_code_char(c) => {
                        code.push(c);
                        boxes += 1;
                    }
                    Some('-') if boxes > 0 && !code.ends_with('-') => code.push('-'),
                    Some(_) => return None,
                }
            }
            _ => {}
        }
    }
    ((4..=10).contains(&boxes) && !code.ends_with('-')).then_some(code)
}

fn style_of(el: &scraper::node::Element) -> String {
    el.attr("style")
        .unwrap_or_default()
        .to_ascii_lowercase()
        .replace(' ', "")
}

/// Bold, headings, monospace, big font, letter-spaced: how senders set a code apart.
fn is_prominent(el: &scraper::node::Element) -> bool {
    let name = el.name();
    if matches!(
        name,
        "b" | "strong" | "h1" | "h2" | "h3" | "big" | "code" | "kbd" | "samp" | "tt" | "mark"
    ) {
        return true;
    }
    if name == "font"
        && let Some(size) = el.attr("size")
    {
        let size = size.trim();
        if size.starts_with('+') || size.parse::<u32>().is_ok_and(|s| s >= 4) {
            return true;
        }
    }
    let class = el.attr("class").unwrap_or_default().to_ascii_lowercase();
    if ["code", "otp", "pin", "token"]
        .iter()
        .any(|w| class.contains(w))
    {
        return true;
    }
    let style = style_of(el);
    if style.is_empty() {
        return false;
    }
    for decl in style.split(';') {
        let Some((prop, value)) = decl.split_once(':') else {
            continue;
        };
        match prop {
            "font-size" => {
                let num: String = value
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let n: f32 = num.parse().unwrap_or(0.0);
                let unit = &value[num.len()..];
                let big = match unit {
                    u if u.starts_with("px") => n >= 18.0,
                    u if u.starts_with("pt") => n >= 14.0,
                    u if u.starts_with("em") || u.starts_with("rem") => n >= 1.3,
                    u if u.starts_with('%') => n >= 130.0,
                    _ => matches!(value, "large" | "x-large" | "xx-large" | "xxx-large"),
                };
                if big {
                    return true;
                }
            }
            "font-weight"
                if (value.starts_with("bold") || value.parse::<u32>().is_ok_and(|w| w >= 600)) =>
            {
                return true;
            }
            "letter-spacing"
                if !value.starts_with("normal")
                    && !value.starts_with('0')
                    && !value.starts_with('-') =>
            {
                return true;
            }
            "font-family"
                if ["monospace", "courier", "consolas", "menlo", "monaco"]
                    .iter()
                    .any(|m| value.contains(m)) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

fn is_button(el: &scraper::node::Element) -> bool {
    let class = el.attr("class").unwrap_or_default().to_ascii_lowercase();
    if ["button", "btn", "cta"].iter().any(|w| class.contains(w)) {
        return true;
    }
    if el
        .attr("role")
        .is_some_and(|r| r.eq_ignore_ascii_case("button"))
    {
        return true;
    }
    let style = style_of(el);
    style.contains("background") && (style.contains("padding") || style.contains("inline-block"))
}

// ---------------------------------------------------------------------------------------------
// Keyword tables
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pol {
    Pos,
    Neg,
    /// Only suppresses positive matches it contains (`barcode`, `unicode`).
    Neutral,
}

/// Labels around an OTP candidate. `^` = needs a word boundary before, `$` = after.
const OTP_LABELS: &[(&str, Pol)] = &[
    // --- marks a code
    ("code", Pol::Pos),
    ("^otp$", Pol::Pos),
    ("^totp$", Pol::Pos),
    ("passcode", Pol::Pos),
    ("^pass code", Pol::Pos),
    ("^one-time", Pol::Pos),
    ("^one time", Pol::Pos),
    ("^onetime", Pol::Pos),
    ("^pin$", Pol::Pos),
    ("^pins$", Pol::Pos),
    ("^verif", Pol::Pos),
    ("^vérif", Pol::Pos),
    ("^weryfikac", Pol::Pos),
    ("^2fa$", Pol::Pos),
    ("^mfa$", Pol::Pos),
    ("^two-factor", Pol::Pos),
    ("^2-step", Pol::Pos),
    ("^authenticat", Pol::Pos),
    ("^token$", Pol::Pos),
    ("^código", Pol::Pos),
    ("^codigo", Pol::Pos),
    ("^codice", Pol::Pos),
    ("^kod", Pol::Pos),
    ("^koodi", Pol::Pos),
    ("^bestätigung", Pol::Pos),
    ("^einmal", Pol::Pos),
    ("^sicherheits", Pol::Pos),
    ("^код", Pol::Pos),
    ("^пароль", Pol::Pos),
    ("^подтвержд", Pol::Pos),
    ("^одноразов", Pol::Pos),
    ("验证码", Pol::Pos),
    ("驗證碼", Pol::Pos),
    ("校验码", Pol::Pos),
    ("动态码", Pol::Pos),
    ("确认码", Pol::Pos),
    ("認証", Pol::Pos),
    ("確認コード", Pol::Pos),
    ("コード", Pol::Pos),
    ("ワンタイム", Pol::Pos),
    ("パスコード", Pol::Pos),
    ("暗証番号", Pol::Pos),
    ("인증", Pol::Pos),
    ("코드", Pol::Pos),
    ("รหัส", Pol::Pos),
    ("^mã xác", Pol::Pos),
    // --- words that contain "code" without meaning one
    ("barcode", Pol::Neutral),
    ("encode", Pol::Neutral),
    ("decode", Pol::Neutral),
    ("unicode", Pol::Neutral),
    // --- codes that are not one-time codes
    ("zipcode", Pol::Neg),
    ("postcode", Pol::Neg),
    ("^zip", Pol::Neg),
    ("^postal", Pol::Neg),
    ("^area code", Pol::Neg),
    ("^country code", Pol::Neg),
    ("^source code", Pol::Neg),
    ("^qr code", Pol::Neg),
    ("^swift", Pol::Neg),
    ("^sort code", Pol::Neg),
    ("^promo", Pol::Neg),
    ("^promo code", Pol::Neg),
    ("^promotional code", Pol::Neg),
    ("^coupon code", Pol::Neg),
    ("^discount code", Pol::Neg),
    ("^voucher code", Pol::Neg),
    ("^referral code", Pol::Neg),
    ("^invite code", Pol::Neg),
    ("^invitation code", Pol::Neg),
    ("^gift code", Pol::Neg),
    ("^gift card code", Pol::Neg),
    ("^bonus code", Pol::Neg),
    ("^offer code", Pol::Neg),
    ("^zip code", Pol::Neg),
    ("^postal code", Pol::Neg),
    ("^tracking code", Pol::Neg),
    ("^product code", Pol::Neg),
    ("^item code", Pol::Neg),
    ("^order code", Pol::Neg),
    ("^error code", Pol::Neg),
    ("^old code", Pol::Neg),
    ("^previous code", Pol::Neg),
    ("^expired code", Pol::Neg),
    ("^backup code", Pol::Neg),
    ("^recovery code", Pol::Neg),
    ("^status code", Pol::Neg),
    ("^rabattcode", Pol::Neg),
    ("^gutscheincode", Pol::Neg),
    ("^aktionscode", Pol::Neg),
    ("^promocode", Pol::Neg),
    ("^couponcode", Pol::Neg),
    ("^coupon", Pol::Neg),
    ("^discount", Pol::Neg),
    ("^voucher", Pol::Neg),
    ("^referral", Pol::Neg),
    ("^gift", Pol::Neg),
    ("^rabatt", Pol::Neg),
    ("^gutschein", Pol::Neg),
    ("^cupón", Pol::Neg),
    ("^descuento", Pol::Neg),
    ("code postal", Pol::Neg),
    ("código postal", Pol::Neg),
    ("codice postale", Pol::Neg),
    ("codice fiscale", Pol::Neg),
    ("^postleitzahl", Pol::Neg),
    ("^plz$", Pol::Neg),
    // orders, invoices, references
    ("^order", Pol::Neg),
    ("^bestell", Pol::Neg),
    ("^pedido", Pol::Neg),
    ("^commande", Pol::Neg),
    ("^ordine", Pol::Neg),
    ("^заказ", Pol::Neg),
    ("注文", Pol::Neg),
    ("订单", Pol::Neg),
    ("訂單", Pol::Neg),
    ("주문", Pol::Neg),
    ("^zamówieni", Pol::Neg),
    ("^invoice", Pol::Neg),
    ("^rechnung", Pol::Neg),
    ("^factura", Pol::Neg),
    ("^facture", Pol::Neg),
    ("^fattura", Pol::Neg),
    ("^счет", Pol::Neg),
    ("^счёт", Pol::Neg),
    ("请求", Pol::Neg),
    ("发票", Pol::Neg),
    ("請求", Pol::Neg),
    ("^receipt", Pol::Neg),
    ("^quittung", Pol::Neg),
    ("^recibo", Pol::Neg),
    ("^reçu", Pol::Neg),
    ("^tracking", Pol::Neg),
    ("^sendung", Pol::Neg),
    ("^shipment", Pol::Neg),
    ("^ticket", Pol::Neg),
    ("^case$", Pol::Neg),
    ("^reference", Pol::Neg),
    ("^referencia", Pol::Neg),
    ("^référence", Pol::Neg),
    ("^riferimento", Pol::Neg),
    ("^ref$", Pol::Neg),
    ("^transaction", Pol::Neg),
    ("^txn", Pol::Neg),
    ("^account number", Pol::Neg),
    ("^account no", Pol::Neg),
    ("^account #", Pol::Neg),
    ("^acct", Pol::Neg),
    ("^iban", Pol::Neg),
    ("^customer", Pol::Neg),
    ("^kunden", Pol::Neg),
    ("^member", Pol::Neg),
    ("^id$", Pol::Neg),
    ("^booking", Pol::Neg),
    ("^ending in", Pol::Neg),
    ("^ending with", Pol::Neg),
    ("^ends in", Pol::Neg),
    ("^ends with", Pol::Neg),
    ("^last 4", Pol::Neg),
    ("^last four", Pol::Neg),
    ("^endet auf", Pol::Neg),
    ("^termina en", Pol::Neg),
    ("^se terminant par", Pol::Neg),
    ("^reservation", Pol::Neg),
    ("^confirmation number", Pol::Neg),
    ("^confirmation no", Pol::Neg),
    ("^confirmation #", Pol::Neg),
    ("^no.", Pol::Neg),
    ("^nr$", Pol::Neg),
    ("^nr.", Pol::Neg),
    ("^nº", Pol::Neg),
    ("^n°", Pol::Neg),
    ("№", Pol::Neg),
    ("^número de pedido", Pol::Neg),
    ("^serial", Pol::Neg),
    ("^sku$", Pol::Neg),
    ("^item", Pol::Neg),
    ("^qty$", Pol::Neg),
    ("^quantity", Pol::Neg),
    ("^version", Pol::Neg),
    ("^build$", Pol::Neg),
    ("^model", Pol::Neg),
    ("^ip$", Pol::Neg),
    ("^port$", Pol::Neg),
    // phones
    ("^phone", Pol::Neg),
    ("^telephone", Pol::Neg),
    ("^tel$", Pol::Neg),
    ("^tel.", Pol::Neg),
    ("^call$", Pol::Neg),
    ("^call us", Pol::Neg),
    ("^fax", Pol::Neg),
    ("^mobile", Pol::Neg),
    ("^hotline", Pol::Neg),
    ("^whatsapp", Pol::Neg),
    ("^teléfono", Pol::Neg),
    ("^telefon", Pol::Neg),
    ("^téléphone", Pol::Neg),
    ("^tél$", Pol::Neg),
    ("^tél.", Pol::Neg),
    ("^телефон", Pol::Neg),
    ("電話", Pol::Neg),
    // addresses
    ("^suite", Pol::Neg),
    ("^ste$", Pol::Neg),
    ("^street", Pol::Neg),
    ("^st$", Pol::Neg),
    ("^st.", Pol::Neg),
    ("^ave$", Pol::Neg),
    ("^ave.", Pol::Neg),
    ("^avenue", Pol::Neg),
    ("^road", Pol::Neg),
    ("^rd$", Pol::Neg),
    ("^blvd", Pol::Neg),
    ("^floor", Pol::Neg),
    ("^straße", Pol::Neg),
    ("^strasse", Pol::Neg),
    ("^str.", Pol::Neg),
    ("^calle", Pol::Neg),
    ("^rue$", Pol::Neg),
    ("^box$", Pol::Neg),
    ("^building", Pol::Neg),
    ("^apt", Pol::Neg),
    // money
    ("^price", Pol::Neg),
    ("^total", Pol::Neg),
    ("^subtotal", Pol::Neg),
    ("^amount", Pol::Neg),
    ("^balance", Pol::Neg),
    ("^payment", Pol::Neg),
    ("^paid$", Pol::Neg),
    ("^charge", Pol::Neg),
    ("^usd$", Pol::Neg),
    ("^eur$", Pol::Neg),
    ("^gbp$", Pol::Neg),
    ("^jpy$", Pol::Neg),
    ("^betrag", Pol::Neg),
    ("^summe", Pol::Neg),
    ("^importe", Pol::Neg),
    ("^montant", Pol::Neg),
    ("^prix", Pol::Neg),
    ("^precio", Pol::Neg),
    ("^итого", Pol::Neg),
    ("^сумма", Pol::Neg),
    ("金額", Pol::Neg),
    ("合計", Pol::Neg),
    // footers
    ("©", Pol::Neg),
    ("(c)", Pol::Neg),
    ("^copyright", Pol::Neg),
];

struct Label {
    start: usize,
    end: usize,
    pol: Pol,
}

/// A keyword: its characters, polarity, and whether it needs a word boundary before / after.
type Kw = (Vec<char>, Pol, bool, bool);

struct KwTable {
    by_first: HashMap<char, Vec<Kw>>,
}

fn otp_table() -> &'static KwTable {
    static TABLE: OnceLock<KwTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut by_first: HashMap<char, Vec<Kw>> = HashMap::new();
        for (spec, pol) in OTP_LABELS {
            let lb = spec.starts_with('^');
            let rb = spec.ends_with('$') && spec.len() > 1;
            let word = spec.trim_start_matches('^').trim_end_matches('$');
            let chars: Vec<char> = word.chars().collect();
            by_first
                .entry(chars[0])
                .or_default()
                .push((chars, *pol, lb, rb));
        }
        KwTable { by_first }
    })
}

fn lower(cs: &[char]) -> Vec<char> {
    cs.iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect()
}

/// Every label that lies within `lo..hi` of `text` (lower-cased), positives inside a negative
/// or neutral match removed.
fn labels_in(text: &[char], lo: usize, hi: usize) -> Vec<Label> {
    let table = otp_table();
    let hi = hi.min(text.len());
    let mut found: Vec<Label> = Vec::new();
    for i in lo..hi {
        let Some(cands) = table.by_first.get(&text[i]) else {
            continue;
        };
        for (kw, pol, lb, rb) in cands {
            let end = i + kw.len();
            if end > hi || text[i..end] != kw[..] {
                continue;
            }
            if *lb && i > 0 && text[i - 1].is_alphabetic() {
                continue;
            }
            if *rb && end < text.len() && text[end].is_alphanumeric() {
                continue;
            }
            found.push(Label {
                start: i,
                end,
                pol: *pol,
            });
        }
    }
    let blockers: Vec<(usize, usize)> = found
        .iter()
        .filter(|l| l.pol != Pol::Pos)
        .map(|l| (l.start, l.end))
        .collect();
    found.retain(|l| {
        l.pol != Pol::Pos
            || !blockers
                .iter()
                .any(|&(s, e)| s <= l.start && l.end <= e && (e - s) > (l.end - l.start))
    });
    found.retain(|l| l.pol != Pol::Neutral);
    found.sort_by_key(|l| (l.start, l.end));
    found
}

// ---------------------------------------------------------------------------------------------
// OTP candidates
// ---------------------------------------------------------------------------------------------

fn is_code_char(c: char) -> bool {
    c.is_ascii_digit() || c.is_ascii_uppercase()
}

#[derive(Debug, Clone)]
struct Cand {
    start: usize,
    end: usize,
    shown: String,
    compact: String,
    groups: Vec<String>,
    sep: Option<char>,
    /// `6 0 4 1 9 2`: one character per group, single spaces.
    spaced: bool,
}

fn run_end(cs: &[char], mut i: usize) -> usize {
    while i < cs.len() && cs[i].is_ascii_alphanumeric() {
        i += 1;
    }
    i
}

/// Every run of upper-case letters and digits, with at most one dash or space grouping.
fn scan_candidates(cs: &[char]) -> Vec<Cand> {
    let n = cs.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if !cs[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let g1_end = run_end(cs, i);
        if i > 0 && (cs[i - 1].is_ascii_alphanumeric() || cs[i - 1] == '_')
            || !cs[i..g1_end].iter().all(|&c| is_code_char(c))
        {
            i = g1_end;
            continue;
        }
        let g1: String = cs[i..g1_end].iter().collect();
        let g1_digits = g1.chars().all(|c| c.is_ascii_digit());
        // `6 0 4 1 9 2`
        if g1.len() == 1 {
            let mut k = g1_end;
            let mut singles = vec![cs[i]];
            while k + 1 < n
                && cs[k] == ' '
                && is_code_char(cs[k + 1])
                && (k + 2 == n || !cs[k + 2].is_ascii_alphanumeric())
            {
                singles.push(cs[k + 1]);
                k += 2;
            }
            if singles.len() >= 4 {
                let compact: String = singles.iter().collect();
                out.push(Cand {
                    start: i,
                    end: k,
                    shown: compact.clone(),
                    compact,
                    groups: singles.iter().map(|c| c.to_string()).collect(),
                    sep: Some(' '),
                    spaced: true,
                });
                i = k;
                continue;
            }
        }
        let mut cand = Cand {
            start: i,
            end: g1_end,
            shown: g1.clone(),
            compact: g1.clone(),
            groups: vec![g1.clone()],
            sep: None,
            spaced: false,
        };
        if g1_end + 1 < n && cs[g1_end] == '-' && cs[g1_end + 1].is_ascii_alphanumeric() {
            let g2_end = run_end(cs, g1_end + 1);
            if !cs[g1_end + 1..g2_end].iter().all(|&c| is_code_char(c)) {
                // a hyphenated mixed-case word (`G-Suite`): no candidate here
                i = g2_end;
                continue;
            }
            let g2: String = cs[g1_end + 1..g2_end].iter().collect();
            cand.end = g2_end;
            cand.shown = format!("{g1}-{g2}");
            cand.compact = format!("{g1}{g2}");
            cand.groups.push(g2);
            cand.sep = Some('-');
        } else if g1_end + 1 < n && cs[g1_end] == ' ' && is_code_char(cs[g1_end + 1]) {
            let g2_end = run_end(cs, g1_end + 1);
            let g2: String = cs[g1_end + 1..g2_end].iter().collect();
            let (l1, l2) = (g1.len(), g2.len());
            let digits = |g: &str| g.chars().all(|c| c.is_ascii_digit());
            let has_digit = |g: &str| g.chars().any(|c| c.is_ascii_digit());
            // `482 913`, `5521 9034`; or mixed halves of equal length: `ZK4 P2Q`
            let digit_groups = g1_digits
                && digits(&g2)
                && (2..=5).contains(&l1)
                && (2..=5).contains(&l2)
                && l1.abs_diff(l2) <= 1;
            let mixed_groups = l1 == l2
                && (3..=5).contains(&l1)
                && g2.chars().all(is_code_char)
                && has_digit(&g1)
                && has_digit(&g2)
                && !(digits(&g1) && digits(&g2));
            if digit_groups || mixed_groups {
                cand.end = g2_end;
                cand.shown = format!("{g1} {g2}");
                cand.compact = format!("{g1}{g2}");
                cand.groups.push(g2);
                cand.sep = Some(' ');
            }
        }
        i = cand.end;
        out.push(cand);
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Digits,
    Mixed,
    Letters,
}

/// Upper-case words that appear in mail and are never codes, even grouped (`ONE-TIME`).
const WORDS: &[&str] = &[
    "ONE", "TWO", "TIME", "STEP", "SIGN", "LOG", "OPT", "OUT", "FREE", "SALE", "NEW", "NOW",
    "CODE", "PASS", "WORD", "AUTO", "SELF", "CHECK", "LIVE", "DEMO", "TEST", "USER", "HELP",
    "MAIL", "EMAIL", "LINK", "OPEN", "SHOP", "BUY", "GET", "PLUS", "PRO", "MAX", "MINI", "TOP",
    "BEST", "HOT", "DEAL", "BACK", "HOME", "PAGE", "DATA", "INFO", "FAQ", "NEWS", "HIGH", "LOW",
    "FULL", "REAL", "DAY", "WEEK", "YEAR", "OFF", "END", "ALL", "AND", "THE", "FOR", "YOU", "YOUR",
    "NOT", "WITH", "FROM", "THIS", "THAT", "SAVE", "HERE", "CLICK", "VERIFY", "LOGIN", "RESET",
    "READ", "ONLY", "DO", "NO", "REPLY", "XOXO", "COVID", "UTF", "ISO", "SHA", "RFC", "HTTP",
    "HTTPS", "HTML", "CSS", "API", "USB", "PDF", "IPV", "MP", "TLS", "SSL", "SMS", "OTP", "PIN",
    "MFA", "USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "INV", "ORDER", "REF", "PO", "VAT",
    "GST", "TAX", "SKU", "QTY", "ID", "NO", "NR", "TEL", "FAX", "ZIP", "FIFA", "NASA", "UEFA",
    "SUITE", "AVE", "BLVD", "STE", "APT", "WIFI", "WI", "FI", "LTE",
];

const UNIT_SUFFIXES: &[&str] = &[
    "ST", "ND", "RD", "TH", "AM", "PM", "H", "HR", "HRS", "MIN", "MINS", "S", "SEC", "MB", "GB",
    "KB", "TB", "MS", "PX", "PT", "EM", "K", "M", "X", "D", "Y", "W", "G", "KG", "CM", "MM", "KM",
    "FPS", "HZ", "MHZ", "GHZ", "P", "V", "A",
];

fn vowels(s: &str) -> usize {
    s.chars().filter(|c| "AEIOUY".contains(*c)).count()
}

fn shape_of(c: &Cand) -> Option<Shape> {
    let len = c.compact.len();
    if !(4..=10).contains(&len) {
        return None;
    }
    let digits = c.compact.chars().filter(|c| c.is_ascii_digit()).count();
    if digits == len {
        return Some(Shape::Digits);
    }
    if c.spaced {
        return Some(if digits == 0 {
            Shape::Letters
        } else {
            Shape::Mixed
        });
    }
    if digits == 0 {
        // Letters only: two dash-separated groups of 3–5 letters that are not words.
        let ok = c.sep == Some('-')
            && c.groups.len() == 2
            && c.groups.iter().all(|g| (3..=5).contains(&g.len()))
            && !c.groups.iter().any(|g| WORDS.contains(&g.as_str()))
            && !c.groups.iter().all(|g| vowels(g) >= 2);
        return ok.then_some(Shape::Letters);
    }
    // Mixed letters and digits.
    if c.sep.is_none() {
        let lead_digits: String = c
            .compact
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let rest = &c.compact[lead_digits.len()..];
        if !lead_digits.is_empty()
            && rest.chars().all(|c| c.is_ascii_uppercase())
            && UNIT_SUFFIXES.contains(&rest)
        {
            return None; // 10TH, 24H, 512MB
        }
        // a word and a small number: promotion codes (`THANKS10`, `WELCOME15`), not OTPs
        let lead_letters: String = c
            .compact
            .chars()
            .take_while(|c| c.is_ascii_uppercase())
            .collect();
        let tail = &c.compact[lead_letters.len()..];
        if lead_letters.len() >= 4
            && vowels(&lead_letters) >= 1
            && (1..=3).contains(&tail.len())
            && tail.chars().all(|c| c.is_ascii_digit())
        {
            return None;
        }
    }
    for group in &c.groups {
        let mut word = String::new();
        for ch in group.chars().chain(std::iter::once('0')) {
            if ch.is_ascii_uppercase() {
                word.push(ch);
            } else {
                if word.len() >= 2 && WORDS.contains(&word.as_str()) {
                    return None; // ISO9001, SHA256, COVID-19
                }
                word.clear();
            }
        }
    }
    Some(Shape::Mixed)
}

const MONTHS: &[&str] = &[
    "jan",
    "january",
    "feb",
    "february",
    "mar",
    "march",
    "apr",
    "april",
    "may",
    "jun",
    "june",
    "jul",
    "july",
    "aug",
    "august",
    "sep",
    "sept",
    "september",
    "oct",
    "october",
    "nov",
    "november",
    "dec",
    "december",
    "januar",
    "februar",
    "märz",
    "mai",
    "juni",
    "juli",
    "oktober",
    "dezember",
    "janvier",
    "février",
    "mars",
    "avril",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
    "gennaio",
    "febbraio",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "settembre",
    "ottobre",
    "dicembre",
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
    "mon",
    "tue",
    "wed",
    "thu",
    "fri",
    "sat",
    "sun",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Characters that may surround a code that is "alone" on its line or in its element.
fn is_trim(c: char) -> bool {
    c == ' ' || "*_:;.,!?\"'“”‘’«»()[]{}<>|-=~•·…：，。、「」『』【】（）》《".contains(c)
}

/// The word (letters only) right before `at` or right after `at`, lower-cased.
fn word_before(lc: &[char], at: usize) -> String {
    let mut k = at;
    while k > 0 && matches!(lc[k - 1], ' ' | ',' | '.') && at - k < 3 {
        k -= 1;
    }
    let end = k;
    while k > 0 && lc[k - 1].is_alphabetic() {
        k -= 1;
    }
    lc[k..end].iter().collect()
}

fn word_after(lc: &[char], at: usize) -> String {
    let mut k = at;
    while k < lc.len() && matches!(lc[k], ' ' | ',' | '.') && k - at < 3 {
        k += 1;
    }
    let start = k;
    while k < lc.len() && lc[k].is_alphabetic() {
        k += 1;
    }
    lc[start..k].iter().collect()
}

/// A run of at least three ASCII digits overlapping `lo..hi` (another number in between).
fn has_number(cs: &[char], lo: usize, hi: usize) -> bool {
    let mut run = 0;
    for &c in cs.iter().take(hi.min(cs.len())).skip(lo) {
        if c.is_ascii_digit() {
            run += 1;
            if run >= 3 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Hard rejections that only look at the characters around the candidate.
fn rejected_by_surroundings(cs: &[char], c: &Cand, recipient_runs: &[String]) -> bool {
    let n = cs.len();
    let prev = |k: usize| {
        if c.start >= k {
            Some(cs[c.start - k])
        } else {
            None
        }
    };
    let next = |k: usize| cs.get(c.end + k - 1).copied();
    // hex colours, order numbers, prices, phone / plus-address prefixes
    if matches!(
        prev(1),
        Some('#' | '$' | '€' | '£' | '¥' | '₹' | '₽' | '+' | '@' | '&' | '%' | '〒')
    ) {
        return true;
    }
    if matches!(prev(1), Some(' '))
        && matches!(prev(2), Some('#' | '$' | '€' | '£' | '¥' | '₽' | '№'))
    {
        return true;
    }
    if matches!(
        next(1),
        Some(
            '%' | '€'
                | '£'
                | '¥'
                | '₽'
                | '$'
                | '@'
                | '°'
                | '円'
                | '元'
                | '年'
                | '月'
                | '日'
                | '時'
                | '分'
                | '件'
                | '個'
                | '歳'
                | '号'
                | '번'
                | '원'
                | '년'
                | '월'
                | '일'
        )
    ) {
        return true;
    }
    // masked numbers: `***-***-4821`, `•••• 4821`, `xxxx-4821`
    let mut k = c.start;
    while k > 0 && c.start - k < 2 && matches!(cs[k - 1], '-' | ' ' | '.') {
        k -= 1;
    }
    let mask = |ch: char| matches!(ch, '*' | '•' | '●' | '∗');
    if k > 0
        && (mask(cs[k - 1])
            || (matches!(cs[k - 1], 'X' | 'x')
                && k >= 2
                && (mask(cs[k - 2]) || matches!(cs[k - 2], 'X' | 'x'))))
    {
        return true;
    }
    if matches!(next(1), Some(' '))
        && matches!(next(2), Some('%' | '€' | '£' | '円' | '元' | '₽' | '¥'))
    {
        return true;
    }
    // decimals, thousands, times, versions, dates with dots
    if matches!(prev(1), Some('.' | ',' | ':')) && prev(2).is_some_and(|d| d.is_ascii_digit()) {
        return true;
    }
    if matches!(next(1), Some('.' | ',' | ':'))
        && cs.get(c.end + 1).is_some_and(|d| d.is_ascii_digit())
        && run_end(cs, c.end + 1) - (c.end + 1) >= 2
    {
        return true;
    }
    for (sep, around) in [(prev(1), prev(2)), (next(1), next(2))] {
        if matches!(sep, Some('/' | '\\')) && around.is_some_and(|d| d.is_ascii_alphanumeric()) {
            return true;
        }
    }
    // part of a longer hyphenated or underscored word
    if matches!(prev(1), Some('-' | '_')) && prev(2).is_some_and(|d| d.is_ascii_alphanumeric()) {
        return true;
    }
    if matches!(next(1), Some('-' | '_')) && next(2).is_some_and(|d| d.is_ascii_alphanumeric()) {
        return true;
    }
    if next(1).is_some_and(|d| d.is_ascii_alphanumeric() || d == '_') {
        return true;
    }
    // inside an e-mail address, URL or domain: the ASCII token around the candidate
    let stop = |ch: char| !ch.is_ascii() || ch == ' ' || "()[]<>\"',".contains(ch);
    let mut l = c.start;
    while l > 0 && !stop(cs[l - 1]) {
        l -= 1;
    }
    let mut r = c.end;
    while r < n && !stop(cs[r]) {
        r += 1;
    }
    let token: String = cs[l..r].iter().collect();
    let token_l = token.to_ascii_lowercase();
    if token.contains(['@', '/', '\\', '=', '?', '&', '%', '+'])
        || token_l.contains("www.")
        || token_l.contains("://")
    {
        return true;
    }
    let tc: Vec<char> = token.chars().collect();
    for k in 1..tc.len().saturating_sub(1) {
        if tc[k] == '.' && tc[k - 1].is_ascii_alphanumeric() && tc[k + 1].is_ascii_alphabetic() {
            return true;
        }
    }
    // another number right next to it: phone numbers, dates, account numbers
    let skip = |ch: char| matches!(ch, ' ' | '-' | '(' | ')' | '.' | '/');
    let mut k = c.end;
    let mut hops = 0;
    while k < n && skip(cs[k]) && hops < 3 {
        k += 1;
        hops += 1;
    }
    if hops > 0 && k < n && cs[k].is_ascii_digit() {
        let e = run_end(cs, k);
        let min_run = if c.sep.is_some() { 2 } else { 3 };
        if e - k >= min_run && cs[k..e].iter().all(|d| d.is_ascii_digit()) {
            return true;
        }
    }
    let mut k = c.start;
    let mut hops = 0;
    while k > 0 && skip(cs[k - 1]) && hops < 3 {
        k -= 1;
        hops += 1;
    }
    if hops > 0 && k > 0 && cs[k - 1].is_ascii_digit() {
        let mut s = k;
        while s > 0 && cs[s - 1].is_ascii_digit() {
            s -= 1;
        }
        let len = k - s;
        let before = if s > 0 { Some(cs[s - 1]) } else { None };
        if len >= 2 || matches!(before, Some('+' | '(')) {
            return true;
        }
    }
    // the run's own address (`test+1234@…`)
    if recipient_runs.contains(&c.compact) {
        return true;
    }
    false
}

/// Everything known about one candidate's marking.
#[derive(Debug, Default)]
struct Marks {
    kw_before: Option<usize>,
    kw_after: Option<usize>,
    kw_prev: bool,
    kw_next: bool,
    set_apart: bool,
    prominent: bool,
}

fn alone_in(cs: &[char], lo: usize, hi: usize, c: &Cand) -> bool {
    cs[lo..c.start].iter().all(|&x| is_trim(x)) && cs[c.end..hi].iter().all(|&x| is_trim(x))
}

/// What the labels around a candidate say: nothing, "a code" (at this distance), or "not a code".
enum Verdict {
    None,
    Pos(usize),
    Neg,
}

/// The nearest label before `at`. A negative one (`Order`, `Tel.`) only counts when no other
/// number sits between it and `at` (it describes that number); a positive one (`code`) may sit
/// further, past a number it does not describe (`code for order 12345 is 482913`).
fn label_before(cs: &[char], lc: &[char], lo: usize, at: usize) -> Verdict {
    let labels = labels_in(lc, lo, at);
    for l in labels.iter().rev() {
        let dist = at - l.end;
        let gap_has_number = has_number(cs, l.end, at);
        match l.pol {
            Pol::Neg if dist <= 40 && !gap_has_number => return Verdict::Neg,
            Pol::Pos if dist <= 80 => return Verdict::Pos(dist),
            _ => {}
        }
    }
    Verdict::None
}

fn label_after(cs: &[char], lc: &[char], at: usize, hi: usize) -> Verdict {
    let labels = labels_in(lc, at, hi);
    for l in &labels {
        let dist = l.start - at;
        if has_number(cs, at, l.start) {
            return Verdict::None;
        }
        match l.pol {
            Pol::Neg if dist <= 30 => return Verdict::Neg,
            Pol::Pos if dist <= 50 => return Verdict::Pos(dist),
            _ => {}
        }
    }
    Verdict::None
}

/// The last label of a whole line, ignoring those followed by another number.
fn last_label_of(block: &Block, lc: &[char]) -> Option<Pol> {
    let labels = labels_in(lc, 0, lc.len());
    let last = labels.last()?;
    if has_number(&block.chars, last.end, block.chars.len()) {
        return None;
    }
    Some(last.pol)
}

fn first_label_of(block: &Block, lc: &[char]) -> Option<Pol> {
    let labels = labels_in(lc, 0, lc.len().min(60));
    let first = labels.first()?;
    if has_number(&block.chars, 0, first.start) {
        return None;
    }
    Some(first.pol)
}

/// Whether the lines around `bi` read like a footer, an address or an order summary.
fn in_footer_zone(lowers: &[Vec<char>], bi: usize) -> bool {
    (bi.saturating_sub(3)..(bi + 3).min(lowers.len()))
        .filter(|&i| i != bi)
        .any(|i| {
            let lc = &lowers[i];
            footerish(lc) || labels_in(lc, 0, lc.len()).iter().any(|l| l.pol == Pol::Neg)
        })
}

fn footerish(lc: &[char]) -> bool {
    let s: String = lc.iter().collect();
    [
        "©",
        "copyright",
        "all rights reserved",
        "unsubscribe",
        " inc.",
        " inc,",
        " llc",
        " gmbh",
        " ltd",
        "s.a.",
        "s.l.",
        "alle rechte",
        "tous droits",
        "todos los derechos",
    ]
    .iter()
    .any(|w| s.contains(w))
}

/// How a candidate ranks: strongly marked first (a keyword next to it, or alone in a
/// prominent element), then the subject over the text part over HTML (SPEC: prefer the subject
/// and the text part), then the detailed score. Derived `Ord` compares fields in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    strong: bool,
    source: u8,
    score: i32,
}

/// Ranks a candidate in `blocks[bi]`, or `None` when it is not a code.
fn score_candidate(
    blocks: &[Block],
    lowers: &[Vec<char>],
    bi: usize,
    c: &Cand,
    source: OtpSource,
    message_has_kw: bool,
    recipient_runs: &[String],
) -> Option<Rank> {
    let block = &blocks[bi];
    let cs = &block.chars;
    let lc = &lowers[bi];
    let shape = shape_of(c)?;
    if rejected_by_surroundings(cs, c, recipient_runs) {
        return None;
    }
    let mut m = Marks::default();
    // labels on the same line
    let lo = c.start.saturating_sub(100);
    match label_before(cs, lc, lo, c.start) {
        Verdict::Neg => return None,
        Verdict::Pos(d) => m.kw_before = Some(d),
        Verdict::None => {}
    }
    if m.kw_before.is_none() {
        match label_after(cs, lc, c.end, c.end + 60) {
            Verdict::Neg => return None,
            Verdict::Pos(d) => m.kw_after = Some(d),
            Verdict::None => {}
        }
    }
    m.set_apart = alone_in(cs, 0, cs.len(), c);
    m.prominent = block
        .prominent
        .iter()
        .any(|&(s, e)| s <= c.start && c.end <= e && alone_in(cs, s, e, c));
    // the line before (`Your code is:` / `Order number:`) and after
    let at_line_start = cs[..c.start].iter().all(|&x| is_trim(x));
    if m.kw_before.is_none() && at_line_start && bi > 0 && source != OtpSource::Subject {
        match last_label_of(&blocks[bi - 1], &lowers[bi - 1]) {
            Some(Pol::Neg) => return None,
            Some(Pol::Pos) => m.kw_prev = true,
            _ => {}
        }
    }
    if m.kw_before.is_none()
        && m.kw_after.is_none()
        && !m.kw_prev
        && m.set_apart
        && bi + 1 < blocks.len()
        && source != OtpSource::Subject
        && first_label_of(&blocks[bi + 1], &lowers[bi + 1]) == Some(Pol::Pos)
    {
        m.kw_next = true;
    }
    let near_kw = m.kw_before.is_some_and(|d| d <= 40) || m.kw_after.is_some_and(|d| d <= 30);
    // dates, years, addresses
    if shape == Shape::Digits {
        let wb = word_before(lc, c.start);
        let wa = word_after(lc, c.end);
        if MONTHS.contains(&wb.as_str()) || MONTHS.contains(&wa.as_str()) {
            return None;
        }
        let year = c.compact.len() == 4
            && c.sep.is_none()
            && c.compact
                .parse::<u32>()
                .is_ok_and(|y| (1900..=2099).contains(&y));
        if year && !(m.kw_before.is_some_and(|d| d <= 30) || (m.kw_prev && m.set_apart)) {
            return None;
        }
        if c.sep == Some('-') {
            let (l1, l2) = (c.groups[0].len(), c.groups[1].len());
            if ((l1, l2) == (3, 4) || (l1 == 4 && l2 <= 2) || (l1 == 5 && l2 == 4)) && !near_kw {
                return None; // 555-0100, 2024-05, 94104-1234
            }
        }
        // US zip after a state code (`CA 94104`), or `10115 Berlin` in a comma-separated line
        if (4..=5).contains(&c.compact.len()) && c.sep.is_none() && !near_kw {
            let raw_before: String = cs[c.start.saturating_sub(3)..c.start].iter().collect();
            let state = raw_before.len() == 3
                && raw_before.ends_with(' ')
                && raw_before[..2].chars().all(|x| x.is_ascii_uppercase());
            let capital_after =
                wa.chars().next().is_some() && cs.get(c.end + 1).is_some_and(|x| x.is_uppercase());
            if state || (capital_after && cs.contains(&',')) {
                return None;
            }
        }
    }
    if footerish(lc) && m.kw_before.is_none_or(|d| d > 30) {
        return None;
    }
    // how strongly it is marked
    let mut mark = 0i32;
    if let Some(d) = m.kw_before {
        mark = mark.max(55 - (d as i32) / 3);
    }
    if let Some(d) = m.kw_after {
        mark = mark.max(45 - (d as i32) / 3);
    }
    if m.kw_prev {
        mark = mark.max(38);
    }
    if m.kw_next {
        mark = mark.max(25);
    }
    let subject = source == OtpSource::Subject;
    let apart = m.set_apart || m.prominent;
    match shape {
        Shape::Letters if !(near_kw || (m.kw_prev && apart) || (apart && message_has_kw)) => {
            return None;
        }
        _ => {}
    }
    if c.spaced && !apart {
        return None;
    }
    if mark == 0 && !(message_has_kw && (apart || (subject && shape != Shape::Letters))) {
        return None;
    }
    // a number alone on its line among footer / address / order lines is not a code
    if mark == 0 && !subject && in_footer_zone(lowers, bi) {
        return None;
    }
    let mut score = mark;
    if m.set_apart && !subject {
        score += 25;
    }
    if m.prominent {
        score += 20;
    }
    // SPEC: prefer the subject and the text part (HTML adds layout, and layout adds noise)
    score += match source {
        OtpSource::Subject => 50,
        OtpSource::Text => 20,
        OtpSource::Html => 0,
    };
    if shape == Shape::Digits && c.compact.len() == 6 {
        score += 3;
    }
    if c.sep.is_some() && !c.spaced {
        score += 2;
    }
    Some(Rank {
        strong: mark > 0 || (m.set_apart && m.prominent),
        source: match source {
            OtpSource::Subject => 2,
            OtpSource::Text => 1,
            OtpSource::Html => 0,
        },
        score,
    })
}

fn find_otp_inner(raw: &[u8], recipient: &str) -> Option<Otp> {
    let d = decode(raw)?;
    let recipient_runs: Vec<String> = recipient
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|r| r.len() >= 4)
        .map(|r| r.to_ascii_uppercase())
        .collect();
    let mut sources: Vec<(OtpSource, Vec<Block>)> = Vec::new();
    sources.push((OtpSource::Subject, vec![Block::from_line(&d.subject)]));
    for t in &d.texts {
        sources.push((OtpSource::Text, text_blocks(t)));
    }
    for h in &d.htmls {
        sources.push((OtpSource::Html, render_html(h).blocks));
    }
    let lowers: Vec<Vec<Vec<char>>> = sources
        .iter()
        .map(|(_, blocks)| blocks.iter().map(|b| lower(&b.chars)).collect())
        .collect();
    let message_has_kw = lowers
        .iter()
        .flatten()
        .any(|lc| labels_in(lc, 0, lc.len()).iter().any(|l| l.pol == Pol::Pos));
    let mut best: Option<(Rank, Otp)> = None;
    for ((source, blocks), lows) in sources.iter().zip(&lowers) {
        for bi in 0..blocks.len() {
            for cand in scan_candidates(&blocks[bi].chars) {
                let Some(rank) = score_candidate(
                    blocks,
                    lows,
                    bi,
                    &cand,
                    *source,
                    message_has_kw,
                    &recipient_runs,
                ) else {
                    continue;
                };
                if best.as_ref().is_none_or(|(r, _)| rank > *r) {
                    let code = if cand.spaced {
                        cand.compact.clone()
                    } else {
                        cand.shown.clone()
                    };
                    best = Some((
                        rank,
                        Otp {
                            code,
                            compact: cand.compact.clone(),
                            source: *source,
                        },
                    ));
                }
            }
        }
    }
    best.map(|(_, otp)| otp)
}

// ---------------------------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct ScoredLink {
    url: Url,
    anchor_text: String,
    score: i32,
}

/// Anchor / context words of a verification link, and their weight.
const STRONG_STEMS: &[&str] = &[
    "verif",
    "vérifi",
    "confirm",
    "activat",
    "activate",
    "activer",
    "activar",
    "aktivier",
    "attiva",
    "magic",
    "validat",
    "valider",
    "validar",
    "bestätig",
    "подтверд",
    "активир",
    "確認",
    "認証",
    "有効",
    "验证",
    "確認",
    "确认",
    "激活",
    "인증",
    "확인",
];
const LOGIN_STEMS: &[&str] = &[
    "sign in",
    "sign-in",
    "signin",
    "sign_in",
    "log in",
    "log-in",
    "login",
    "log_in",
    "logon",
    "reset",
    "passwordless",
    "accept",
    "approve",
    "invit",
    "join",
    "anmeld",
    "einlogg",
    "connecter",
    "connexion",
    "iniciar sesi",
    "acceder",
    "accedi",
    "войти",
    "вход",
    "ログイン",
    "登录",
    "登入",
    "로그인",
    "zurücksetz",
    "réinitialis",
    "restablec",
    "sign me in",
];
const WEAK_ANCHORS: &[&str] = &[
    "continue",
    "click here",
    "here",
    "this link",
    "get started",
    "open",
    "go to",
    "start",
    "weiter",
    "continuar",
    "continuer",
    "hier",
    "aquí",
    "ici",
    "qui",
    "link",
    "button",
];
/// Anchor text that is never the link to follow (matched on word boundaries when ASCII).
const BAD_ANCHORS: &[&str] = &[
    "unsubscribe",
    "opt out",
    "opt-out",
    "privacy",
    "help",
    "help center",
    "terms",
    "support",
    "preferences",
    "preference",
    "manage notification",
    "notification settings",
    "email settings",
    "contact us",
    "contact",
    "faq",
    "view in browser",
    "view online",
    "view this email",
    "web version",
    "webversion",
    "report",
    "not me",
    "wasn't me",
    "was not me",
    "didn't request",
    "block",
    "abmelden",
    "désabonner",
    "désinscri",
    "darse de baja",
    "cancelar suscripción",
    "disiscriv",
    "отписат",
    "配信停止",
    "退订",
    "取消订阅",
    "datenschutz",
    "confidentialit",
    "privacidad",
    "impressum",
    "aviso legal",
    "mentions légales",
    "download",
    "app store",
    "google play",
    "facebook",
    "twitter",
    "linkedin",
    "instagram",
    "youtube",
    "tiktok",
    "legal",
    "policy",
    "cookie",
    "blog",
    "careers",
    "press",
];
/// Sentences around a generic anchor (`click here`) that mean "not the link to follow".
const CONTEXT_NEG: &[&str] = &[
    "did not",
    "didn't",
    "don't recognize",
    "do not recognize",
    "not you",
    "wasn't you",
    "was not you",
    "compromised",
    "secure your account",
    "no longer wish",
    "stop receiving",
    "remove your email",
];
/// URL words (host + path) that exclude a link.
const BAD_URL_WORDS: &[&str] = &[
    "unsubscribe",
    "unsub",
    "optout",
    "privacy",
    "help",
    "terms",
    "tos",
    "legal",
    "preferences",
    "prefs",
    "support",
    "faq",
    "contact",
    "policy",
    "policies",
    "cookies",
    "cookie",
    "abuse",
    "impressum",
    "datenschutz",
    "pixel",
    "beacon",
    "blog",
    "careers",
];
const BAD_URL_PARTS: &[&str] = &[
    "unsubscribe",
    "optout",
    "opt-out",
    "opt_out",
    "manage-subscription",
    "email-preferences",
    "email_preferences",
    "notification-settings",
];
const SOCIAL_HOSTS: &[&str] = &[
    "facebook.com",
    "twitter.com",
    "x.com",
    "linkedin.com",
    "instagram.com",
    "youtube.com",
    "tiktok.com",
    "apps.apple.com",
    "itunes.apple.com",
    "play.google.com",
    "pinterest.com",
    "medium.com",
    "github.com",
    "discord.gg",
];
const IMAGE_EXTS: &[&str] = &[
    ".gif", ".png", ".jpg", ".jpeg", ".webp", ".svg", ".bmp", ".ico", ".tif", ".tiff",
];
/// Query parameters that make a URL itself a verification link (it is not a wrapper then).
const TOKEN_KEYS: &[&str] = &[
    "token",
    "code",
    "key",
    "ticket",
    "otp",
    "signature",
    "sig",
    "hash",
    "nonce",
    "oobcode",
    "confirmation_token",
    "verification_token",
    "magic",
    "t",
];
/// Query parameters through which redirectors carry their target.
const WRAPPER_KEYS: &[&str] = &[
    "url",
    "u",
    "redirect",
    "redirect_url",
    "redirect_to",
    "redirecturl",
    "target",
    "dest",
    "destination",
    "goto",
    "link",
    "r",
];

fn contains_word(hay: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return hay.contains(needle);
    }
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let s = from + pos;
        let e = s + needle.len();
        let before_ok = hay[..s]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = hay[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before_ok && after_ok {
            return true;
        }
        from = s + 1;
        while !hay.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

fn stem_score(text: &str, strong: i32, login: i32) -> i32 {
    let mut score = 0;
    if STRONG_STEMS.iter().any(|s| text.contains(s)) {
        score += strong;
    }
    if LOGIN_STEMS.iter().any(|s| text.contains(s)) {
        score += login;
    }
    score
}

fn is_http(u: &Url) -> bool {
    matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
}

/// The target of a known wrapper (Outlook Safe Links, `?url=`-style redirectors), if `u` is one.
fn wrapped_target(u: &Url) -> Option<Url> {
    let host = u.host_str()?.to_ascii_lowercase();
    let safelinks = host == "safelinks.protection.outlook.com"
        || host.ends_with(".safelinks.protection.outlook.com");
    if !safelinks {
        // A verification link that merely carries a `redirect=` for afterwards is not a wrapper.
        let path = u.path().to_ascii_lowercase();
        if stem_score(&path, 1, 1) > 0
            || u.query_pairs()
                .any(|(k, _)| TOKEN_KEYS.contains(&k.to_ascii_lowercase().as_str()))
        {
            return None;
        }
    }
    let google_style = u.path() == "/url";
    for (k, v) in u.query_pairs() {
        let k = k.to_ascii_lowercase();
        let named = if safelinks {
            k == "url"
        } else {
            WRAPPER_KEYS.contains(&k.as_str()) || (google_style && k == "q")
        };
        if !named {
            continue;
        }
        if let Ok(target) = Url::parse(v.trim())
            && is_http(&target)
        {
            return Some(target);
        }
    }
    None
}

fn unwrap_url(mut u: Url) -> Url {
    for _ in 0..5 {
        match wrapped_target(&u) {
            Some(t) => u = t,
            None => break,
        }
    }
    u
}

/// Where a candidate link was seen.
struct LinkOcc {
    href: String,
    /// Anchor text (HTML) or the text before a bare URL.
    text: String,
    /// Surrounding line(s), used when the anchor text says nothing (`click here`).
    context: String,
    /// The line the link sits on (`Not you? Reset your password at …`).
    own_line: String,
    /// True when `text` is real anchor text; false for the words before a bare URL.
    anchored: bool,
    button: bool,
}

fn is_generic_anchor(text: &str) -> bool {
    let t = text.trim().trim_matches(|c: char| !c.is_alphanumeric());
    t.is_empty()
        || t.starts_with("http")
        || t.starts_with("www.")
        || WEAK_ANCHORS.contains(&t)
        || (t.len() <= 24 && WEAK_ANCHORS.iter().any(|w| contains_word(t, w)))
}

fn has_opaque_token(u: &Url) -> bool {
    let long = |s: &str| {
        s.len() >= 16
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.~%".contains(c))
    };
    u.path_segments().is_some_and(|mut segs| segs.any(long))
        || u.query_pairs().any(|(_, v)| long(&v))
}

fn score_link(occ: &LinkOcc) -> Option<ScoredLink> {
    let parsed = Url::parse(occ.href.trim()).ok()?;
    if !is_http(&parsed) {
        return None;
    }
    let url = unwrap_url(parsed);
    let host = url.host_str()?.to_ascii_lowercase();
    if SOCIAL_HOSTS
        .iter()
        .any(|s| host == *s || host.ends_with(&format!(".{s}")))
    {
        return None;
    }
    let path = url.path().to_ascii_lowercase();
    if IMAGE_EXTS.iter().any(|e| path.ends_with(e)) {
        return None;
    }
    let full = url.as_str().to_ascii_lowercase();
    if BAD_URL_PARTS.iter().any(|p| full.contains(p)) {
        return None;
    }
    let host_path = format!("{host}{path}");
    if host_path
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| BAD_URL_WORDS.contains(&w))
    {
        return None;
    }
    let text = occ.text.to_lowercase();
    let context = occ.context.to_lowercase();
    let bad_text = |t: &str| BAD_ANCHORS.iter().any(|b| contains_word(t, b));
    let mut base = 0;
    let bad = bad_text(&text);
    if bad {
        if occ.anchored {
            return None;
        }
        // the words before a bare URL (`Unsubscribe: https://…`) weigh less than anchor text
        base -= 25;
    }
    let generic = !bad && is_generic_anchor(&text);
    // the anchor's own words
    let (strong, login) = if occ.anchored { (40, 30) } else { (30, 22) };
    base += stem_score(&text, strong, login);
    // the URL's words
    let query = url.query().unwrap_or_default().to_ascii_lowercase();
    let url_words = format!("{path}?{query}");
    base += stem_score(&url_words, 30, 20);
    // the surrounding sentence, when the anchor says nothing
    if generic {
        base += stem_score(&context, 12, 8);
        if bad_text(&context) || CONTEXT_NEG.iter().any(|n| context.contains(n)) {
            base -= 30;
        }
    }
    // on the same line as "Not you?" / "If you didn't request this": a defensive link
    let own_line = occ.own_line.to_lowercase();
    if CONTEXT_NEG.iter().any(|n| own_line.contains(n)) {
        base -= 45;
    }
    if base <= 0 {
        return None;
    }
    let mut score = base;
    if url
        .query_pairs()
        .any(|(k, _)| TOKEN_KEYS.contains(&k.to_ascii_lowercase().as_str()))
    {
        score += 12;
    }
    if host.starts_with("auth.") || host.starts_with("login.") || host.starts_with("accounts.") {
        score += 5;
    }
    if occ.button {
        score += 8;
    }
    if has_opaque_token(&url) {
        score += 6;
    }
    if (path.is_empty() || path == "/") && url.query().is_none() {
        score -= 30;
    }
    if WEAK_ANCHORS.iter().any(|w| text.trim() == *w) {
        score += 2;
    }
    (score > 0).then(|| ScoredLink {
        url,
        anchor_text: occ.text.trim().to_string(),
        score,
    })
}

/// Bare `http(s)://` URLs in a line, with their char range.
fn bare_urls(line: &str) -> Vec<(usize, String)> {
    let lower = line.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while from < line.len() {
        let rest = &lower[from..];
        let Some(pos) = [rest.find("https://"), rest.find("http://")]
            .into_iter()
            .flatten()
            .min()
        else {
            break;
        };
        let s = from + pos;
        if line[..s]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            from = s + 4;
            continue;
        }
        let mut e = s;
        for (i, c) in line[s..].char_indices() {
            if c.is_whitespace() || !c.is_ascii() || "<>\"`|{}^".contains(c) {
                break;
            }
            e = s + i + c.len_utf8();
        }
        let mut url = &line[s..e];
        loop {
            let trimmed = url.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '*']);
            let unbalanced = (trimmed.ends_with(')') && !trimmed.contains('('))
                || (trimmed.ends_with(']') && !trimmed.contains('['));
            let trimmed = if unbalanced {
                &trimmed[..trimmed.len() - 1]
            } else {
                trimmed
            };
            if trimmed.len() == url.len() {
                break;
            }
            url = trimmed;
        }
        // plain-text parts sometimes keep HTML's `&amp;`
        out.push((s, url.replace("&amp;", "&")));
        from = e.max(s + 1);
    }
    out
}

fn clean_label(s: &str) -> String {
    s.trim()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

fn link_candidates(raw: &[u8]) -> Vec<ScoredLink> {
    let Some(d) = decode(raw) else {
        return Vec::new();
    };
    let mut occs: Vec<LinkOcc> = Vec::new();
    for h in &d.htmls {
        let rendered = render_html(h);
        let blocks = &rendered.blocks;
        let block_text = |i: usize| blocks.get(i).map(Block::text).unwrap_or_default();
        for a in &rendered.anchors {
            let context = format!(
                "{} {}",
                block_text(a.block.wrapping_sub(1)),
                block_text(a.block)
            );
            occs.push(LinkOcc {
                href: a.href.clone(),
                text: a.text.clone(),
                context,
                own_line: block_text(a.block),
                anchored: true,
                button: a.button,
            });
        }
        for (i, b) in blocks.iter().enumerate() {
            push_bare(&mut occs, &b.text(), || block_text(i.wrapping_sub(1)));
        }
    }
    for t in &d.texts {
        let lines: Vec<&str> = t.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            push_bare(&mut occs, line, || {
                lines[..i]
                    .iter()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .map(|l| l.to_string())
                    .unwrap_or_default()
            });
        }
    }
    let mut best: Vec<ScoredLink> = Vec::new();
    for occ in &occs {
        let Some(s) = score_link(occ) else {
            continue;
        };
        match best.iter_mut().find(|b| b.url == s.url) {
            Some(b) => {
                if s.score > b.score {
                    *b = s;
                }
            }
            None => best.push(s),
        }
    }
    // stable: earlier links win ties
    best.sort_by_key(|b| std::cmp::Reverse(b.score));
    best
}

/// The last clause of `s` (after its last sentence end), at most 80 characters.
fn last_clause(s: &str) -> &str {
    let s = s.trim_end();
    let body = s.trim_end_matches(|c: char| !c.is_alphanumeric());
    let cut = [". ", "! ", "? ", "。", "！", "？"]
        .iter()
        .filter_map(|p| body.rfind(p).map(|i| i + p.len()))
        .max()
        .unwrap_or(0);
    let mut clause = &s[cut..];
    while clause.chars().count() > 80 {
        let mut it = clause.char_indices();
        it.next();
        clause = it.next().map_or("", |(i, _)| &clause[i..]);
    }
    clause
}

fn push_bare(occs: &mut Vec<LinkOcc>, line: &str, previous: impl Fn() -> String) {
    for (s, url) in bare_urls(line) {
        let before = clean_label(last_clause(&line[..s]));
        let (text, context) = if before.is_empty() {
            let prev = previous();
            (clean_label(last_clause(&prev)), prev)
        } else {
            (before, line.to_string())
        };
        occs.push(LinkOcc {
            href: url,
            text,
            context,
            own_line: line.to_string(),
            anchored: false,
            button: false,
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn text_mail(subject: &str, body: &str) -> Vec<u8> {
        format!(
            "From: Acme <no-reply@acme.example>\r\nTo: test+1234@inbox.test\r\nSubject: {subject}\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        )
        .into_bytes()
    }

    fn html_mail(subject: &str, html: &str) -> Vec<u8> {
        format!(
            "From: Acme <no-reply@acme.example>\r\nTo: test+1234@inbox.test\r\nSubject: {subject}\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
        )
        .into_bytes()
    }

    fn otp(raw: &[u8]) -> Option<String> {
        find_otp(raw, "test+1234@inbox.test").map(|o| o.code)
    }

    fn only(host: &'static str) -> impl Fn(&Url) -> bool {
        move |u: &Url| {
            u.host_str()
                .is_some_and(|h| h == host || h.ends_with(&format!(".{host}")))
        }
    }

    fn link(raw: &[u8], host: &'static str) -> Result<String, LinkError> {
        find_link(raw, &only(host)).map(|l| l.url.to_string())
    }

    #[test]
    fn keyword_adjacent_digits() {
        let m = text_mail(
            "Sign in",
            "Your verification code is 482913. It expires soon.",
        );
        let found = find_otp(&m, "test+1234@inbox.test").unwrap();
        assert_eq!(found.code, "482913");
        assert_eq!(found.compact, "482913");
        assert_eq!(found.source, OtpSource::Text);
    }

    #[test]
    fn grouped_codes_keep_their_separator() {
        let m = text_mail("Hi", "G-482913 is your verification code.");
        let found = find_otp(&m, "x@inbox.test").unwrap();
        assert_eq!(
            (found.code.as_str(), found.compact.as_str()),
            ("G-482913", "G482913")
        );
        assert_eq!(
            otp(&text_mail("Hi", "Your code: 4X7-K2P")),
            Some("4X7-K2P".into())
        );
        assert_eq!(
            otp(&text_mail("Hi", "Your code: 482 913")),
            Some("482 913".into())
        );
        assert_eq!(
            otp(&text_mail("Hi", "Login code:\n\nLTRP-KZLV\n")),
            Some("LTRP-KZLV".into())
        );
        assert_eq!(
            otp(&text_mail("Hi", "Your code:\n\nZK4 P2Q\n")),
            Some("ZK4 P2Q".into())
        );
        assert_eq!(
            otp(&text_mail("Hi", "Your PIN 1234 is ready")),
            None,
            "PIN 1234 is not grouped"
        );
    }

    #[test]
    fn ordinary_upper_case_words_are_not_codes() {
        let m = text_mail(
            "IMPORTANT",
            "HELLO\n\nPlease VERIFY your account. Your code will follow.\n\nONE-TIME\n\nSIGN-IN\n",
        );
        assert_eq!(otp(&m), None);
    }

    #[test]
    fn subject_only_code() {
        let m = text_mail(
            "Your login code: 771204",
            "Use the code from the subject line.",
        );
        let found = find_otp(&m, "test+1234@inbox.test").unwrap();
        assert_eq!(found.code, "771204");
        assert_eq!(found.source, OtpSource::Subject);
    }

    #[test]
    fn recipient_digits_are_never_the_code() {
        let m = text_mail(
            "Welcome test+1234",
            "Hi test+1234@inbox.test,\nYour account 1234 is ready.\nYour code: 559901\n",
        );
        assert_eq!(otp(&m), Some("559901".into()));
        let m = text_mail("Welcome", "Your verification code\n\n1234\n");
        assert_eq!(otp(&m), None, "1234 is the recipient's own plus tag");
    }

    #[test]
    fn css_colours_and_style_digits_are_ignored() {
        let html = r#"<html><head><style>.a{color:#202123;font-size:600px} .b{width:123456px}</style></head>
            <body><style>p{color:#10a37f}</style><p style="color:#202123">Brand #202123</p>
            <p>Your verification code:</p><h1>318274</h1></body></html>"#;
        assert_eq!(otp(&html_mail("Code", html)), Some("318274".into()));
        let html = r#"<html><head><style>.a{color:#202123} .x{margin:482913px}</style></head><body><p>Verify your code</p></body></html>"#;
        assert_eq!(otp(&html_mail("Hi", html)), None);
    }

    #[test]
    fn years_prices_phones_dates_orders_are_not_codes() {
        let body = "Your code is below.\n\n© 2024 Acme Inc.\nTotal: $49.99\nCall 1-800-555-0199 or +1 (415) 555-0100\n\
                    Date: 12/05/2024, May 12, 2024, 2024-05-12 at 14:32\nOrder #112233\nOrder number: 556677\n\
                    Invoice 20240512\n548 Market St, San Francisco, CA 94104\n";
        assert_eq!(otp(&text_mail("Hello", body)), None);
        let body2 = format!("{body}\nYour one-time code: 640215\n");
        assert_eq!(otp(&text_mail("Hello", &body2)), Some("640215".into()));
    }

    #[test]
    fn order_label_applies_to_its_own_number_only() {
        let m = text_mail("Hi", "Your verification code for order 12345 is 482913.");
        assert_eq!(otp(&m), Some("482913".into()));
        let m = text_mail("Hi", "Order number:\n48291\n\nThanks for shopping.");
        assert_eq!(otp(&m), None);
    }

    #[test]
    fn digits_inside_urls_and_addresses_are_ignored() {
        let m = text_mail(
            "Verify",
            "Your code: see https://acme.example/verify/482913?x=1\nMail 772211@acme.example\n",
        );
        assert_eq!(otp(&m), None);
    }

    #[test]
    fn split_digit_boxes_are_joined() {
        let html = r#"<p>Enter this verification code:</p><table><tr>
            <td style="border:1px solid">4</td><td>8</td><td> 2 </td><td>9</td><td>1</td><td>3</td></tr></table>"#;
        assert_eq!(otp(&html_mail("Your code", html)), Some("482913".into()));
    }

    #[test]
    fn prominent_element_without_keyword_nearby() {
        let html = r#"<p>Hi Bob, use this to finish signing up. Do not share your code.</p>
            <p>It expires in 10 minutes.</p><div><span style="font-size:28px;letter-spacing:6px">739201</span></div>"#;
        assert_eq!(otp(&html_mail("Welcome", html)), Some("739201".into()));
    }

    #[test]
    fn promo_codes_are_not_one_time_codes() {
        let m = text_mail(
            "Sale",
            "Use promo code SAVE20 today. Discount code: WELCOME10\n",
        );
        assert_eq!(otp(&m), None);
    }

    #[test]
    fn multilingual_keywords() {
        assert_eq!(
            otp(&text_mail("x", "Tu código de verificación es 827361")),
            Some("827361".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Ihr Bestätigungscode lautet: 304918")),
            Some("304918".into())
        );
        assert_eq!(
            otp(&text_mail("x", "您的验证码是839201，5分钟内有效。")),
            Some("839201".into())
        );
        assert_eq!(
            otp(&text_mail("x", "認証コード：615204")),
            Some("615204".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Ваш код подтверждения: 7281")),
            Some("7281".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Twój kod weryfikacyjny: 73920184")),
            Some("73920184".into())
        );
    }

    #[test]
    fn malformed_input_never_panics() {
        for raw in [
            &b""[..],
            b"\xff\xfe\x00garbage",
            b"Content-Type: multipart/alternative; boundary=\"x\"\r\n\r\n--x\r\nContent-Transfer-Encoding: base64\r\n\r\n%%%%\r\n",
            b"Subject: =?utf-8?B?####?=\r\n\r\n",
        ] {
            let _ = find_otp(raw, "a@b.test");
            let _ = find_link(raw, &|_| true);
        }
    }

    #[test]
    fn mask_keeps_at_most_two_characters() {
        assert_eq!(mask_code("482913"), "48••••");
        assert_eq!(mask_code("G-482913"), "G-••••••");
        assert_eq!(mask_code("4X7-K2P"), "4X•-•••");
        assert_eq!(mask_code("4821"), "4•••");
        assert_eq!(mask_code(""), "");
    }

    #[test]
    fn verify_link_beats_unsubscribe_and_privacy_listed_first() {
        let html = r#"<a href="https://shop.example/unsubscribe?u=1">Unsubscribe</a>
            <a href="https://shop.example/privacy">Privacy</a><a href="https://shop.example/help">Help</a>
            <a href="https://shop.example/"><img src="https://cdn.shop.example/logo.png" alt="Shop"></a>
            <p>Please confirm your address.</p>
            <a class="button" href="https://accounts.shop.example/verify?token=abc&amp;email=a%40b.test">Verify email</a>
            <img src="https://t.shop.example/open.gif" width="1" height="1">"#;
        assert_eq!(
            link(&html_mail("Verify", html), "shop.example").unwrap(),
            "https://accounts.shop.example/verify?token=abc&email=a%40b.test"
        );
    }

    #[test]
    fn safelinks_and_redirectors_are_unwrapped() {
        let html = r#"<a href="https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Faccounts.shop.example%2Fverify%3Ftoken%3Dabc&amp;data=05%7C01&amp;reserved=0">Verify</a>"#;
        assert_eq!(
            link(&html_mail("Verify", html), "shop.example").unwrap(),
            "https://accounts.shop.example/verify?token=abc"
        );
        let html = r#"<a href="https://links.mailer.example/r?u=https%3A%2F%2Fshop.example%2Factivate%3Fcode%3Dxyz">Activate account</a>"#;
        assert_eq!(
            link(&html_mail("Activate", html), "shop.example").unwrap(),
            "https://shop.example/activate?code=xyz"
        );
    }

    #[test]
    fn verify_link_with_redirect_parameter_is_not_a_wrapper() {
        let html = r#"<a href="https://shop.example/verify?token=abc&amp;redirect=https%3A%2F%2Fother.example%2Fwelcome">Verify</a>"#;
        assert_eq!(
            link(&html_mail("Verify", html), "shop.example").unwrap(),
            "https://shop.example/verify?token=abc&redirect=https%3A%2F%2Fother.example%2Fwelcome"
        );
    }

    #[test]
    fn opaque_tracking_redirects_are_kept() {
        let html =
            r#"<a href="https://click.shop.test/ls/click?upn=abc123">Confirm your email</a>"#;
        assert_eq!(
            link(&html_mail("Confirm", html), "shop.test").unwrap(),
            "https://click.shop.test/ls/click?upn=abc123"
        );
    }

    #[test]
    fn outside_links_are_never_chosen() {
        let html = r#"<a href="https://evil.test/verify?token=abc">Verify your email</a>"#;
        match link(&html_mail("Verify", html), "shop.example") {
            Err(LinkError::OnlyOutside { candidates }) => {
                assert_eq!(candidates[0].as_str(), "https://evil.test/verify?token=abc");
            }
            other => panic!("expected OnlyOutside, got {other:?}"),
        }
    }

    #[test]
    fn non_http_and_image_links_are_not_candidates() {
        let html = r#"<a href="mailto:help@shop.example">Verify by mail</a><a href="tel:+15550100">Call to confirm</a>
            <a href="javascript:verify()">Verify</a><a href="https://shop.example/verify.png">Verify</a>"#;
        assert_eq!(
            link(&html_mail("Hi", html), "shop.example"),
            Err(LinkError::NoCandidates)
        );
    }

    #[test]
    fn bare_urls_in_text_with_quoted_printable_soft_breaks() {
        let raw = b"From: a@shop.example\r\nTo: b@inbox.test\r\nSubject: Sign in\r\nMIME-Version: 1.0\r\n\
            Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n\
            Privacy: https://shop.example/privacy\r\n\r\nSign in with this magic link:\r\n\
            https://auth.shop.example/magic?token=3Dabcdefghijklmnop=\r\nqrstuvwxyz&email=3Db%40inbox.test\r\n";
        assert_eq!(
            link(raw, "shop.example").unwrap(),
            "https://auth.shop.example/magic?token=abcdefghijklmnopqrstuvwxyz&email=b%40inbox.test"
        );
    }

    #[test]
    fn a_message_without_a_verification_link() {
        let html = r#"<a href="https://shop.example/">Shop</a> <a href="https://shop.example/orders/1">View your order</a>"#;
        assert_eq!(
            link(&html_mail("Thanks", html), "shop.example"),
            Err(LinkError::NoCandidates)
        );
    }
    #[test]
    fn qualified_codes_that_are_not_one_time_codes() {
        assert_eq!(
            otp(&text_mail("x", "Your Apple ID Code is: 482913")),
            Some("482913".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Zip code: 94107\nPostal code 10115")),
            None
        );
        assert_eq!(otp(&text_mail("x", "Your referral code: 7K2P9Q")), None);
        assert_eq!(otp(&text_mail("x", "Ihr Gutscheincode: AB12CD")), None);
    }

    #[test]
    fn masked_and_card_ending_numbers_are_not_codes() {
        let m = text_mail("x", "We sent a verification code to +1 ***-***-4821.");
        assert_eq!(otp(&m), None);
        let m = text_mail(
            "x",
            "We sent a verification code to the phone ending in 4821.",
        );
        assert_eq!(otp(&m), None);
        let m = text_mail("x", "Your code for the card ending in 4821 is 583029.");
        assert_eq!(otp(&m), Some("583029".into()));
        let m = text_mail("x", "Netflix 482913 is your sign-in code");
        assert_eq!(otp(&m), Some("482913".into()));
    }

    #[test]
    fn cjk_dates_and_amounts_are_not_codes() {
        let m = text_mail("x", "認証コード発行日：2024年5月12日、手数料1200円");
        assert_eq!(otp(&m), None);
    }

    #[test]
    fn text_part_is_preferred_over_html_when_both_are_marked() {
        let raw = b"From: a@x.example\r\nTo: b@inbox.test\r\nSubject: Hi\r\nMIME-Version: 1.0\r\n\
            Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n\
            Your verification code is 246810.\r\n--b\r\nContent-Type: text/html\r\n\r\n\
            <p>Your verification code:</p><h1>135790</h1>\r\n--b--\r\n";
        let found = find_otp(raw, "b@inbox.test").unwrap();
        assert_eq!(
            (found.code.as_str(), found.source),
            ("246810", OtpSource::Text)
        );
    }

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

    #[test]
    fn defensive_links_are_not_verification_links() {
        let m = text_mail(
            "New sign-in",
            "Your code: 118274\n\nNot you? Reset your password at https://accounts.shop.example/reset\n",
        );
        assert_eq!(link(&m, "shop.example"), Err(LinkError::NoCandidates));
        let html = r#"<p>If you don't recognize this account, <a href="https://shop.example/remove?token=abc">click here</a>.</p>"#;
        assert_eq!(
            link(&html_mail("Code", html), "shop.example"),
            Err(LinkError::NoCandidates)
        );
    }

    #[test]
    fn bare_url_label_is_the_clause_just_before_it() {
        assert_eq!(
            last_clause("Thanks for joining. Confirm your email: "),
            "Confirm your email:"
        );
        assert_eq!(
            bare_urls("see (https://a.example/x?y=1&amp;z=2).")[0].1,
            "https://a.example/x?y=1&z=2"
        );
    }
    #[test]
    fn deeply_nested_markup_is_read_flat_and_fast() {
        let mut html = "<div>".repeat(20_000);
        html.push_str(
            "<style>.x{color:#202123}</style><p>Your verification code:</p><p><b>482913</b></p>",
        );
        html.push_str(
            r#"<a href="https://shop.example/verify?token=abc&amp;x=1">Verify email</a>"#,
        );
        assert!(nesting_depth(&html) > MAX_NESTING);
        assert!(nesting_depth("<p>a<p>b<table><tr><td>c<br><img src=x></table>") <= 2);
        let started = std::time::Instant::now();
        let m = html_mail("Code", &html);
        assert_eq!(otp(&m), Some("482913".into()));
        assert_eq!(
            link(&m, "shop.example").unwrap(),
            "https://shop.example/verify?token=abc&x=1"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn entities_are_decoded_in_flat_reading() {
        assert_eq!(
            decode_entities("a&amp;b &#61; &#x3D; &nbsp;&bogus; &"),
            "a&b = = \u{a0}&bogus; &"
        );
        assert_eq!(
            attr_value(r#"a class="x" href='https://a.example/?q=1'"#, "href").as_deref(),
            Some("https://a.example/?q=1")
        );
        assert_eq!(
            attr_value("a data-href=x href=y", "href").as_deref(),
            Some("y")
        );
    }
    #[test]
    fn expired_and_backup_codes_are_not_the_code() {
        let m = text_mail(
            "x",
            "Your old code 111111 has expired.\nYour new verification code is 222222.",
        );
        assert_eq!(otp(&m), Some("222222".into()));
        let m = text_mail(
            "x",
            "Two-factor authentication is on. Your backup codes:\n\n1234-5678\n8765-4321\n",
        );
        assert_eq!(otp(&m), None);
    }
    #[test]
    fn words_before_a_bare_url_weigh_less_than_anchor_text() {
        let m = text_mail(
            "Verify",
            "Unsubscribe: https://t.shop.example/abc\n\nTrouble with the button? Contact support or open:\n\
             https://accounts.shop.example/verify?token=abc\n",
        );
        assert_eq!(
            link(&m, "shop.example").unwrap(),
            "https://accounts.shop.example/verify?token=abc"
        );
        let m = text_mail("News", "Unsubscribe: https://t.shop.example/abc\n");
        assert_eq!(link(&m, "shop.example"), Err(LinkError::NoCandidates));
    }
}
