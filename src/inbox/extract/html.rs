//! Reading HTML parts as a mail client shows them: lines of visible text with their prominent
//! ranges (bold, big, monospace), anchors with their text, and codes laid out one per box.

use scraper::{ElementRef, Html, Node};

use super::decode::{Block, is_code_char, norm_char};
use super::quoted::quoted_regions;
use crate::vocabulary::entities::entity;

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
pub(super) struct AnchorOcc {
    pub(super) href: String,
    pub(super) text: String,
    /// Index of the block the anchor starts in (may equal `blocks.len()` when the anchor is
    /// the last thing rendered).
    pub(super) block: usize,
    /// The anchor's character range inside that block, when it starts and ends in it (an
    /// inline link in a sentence); `None` for a link that wraps whole blocks (a button).
    pub(super) span: Option<(usize, usize)>,
    pub(super) button: bool,
    /// Inside a quotation or a note another user typed.
    pub(super) quoted: bool,
}

/// An open anchor: href, text, image alt, button, and where it started (block, char).
struct OpenAnchor {
    href: String,
    text: String,
    alt: String,
    button: bool,
    block: usize,
    at: usize,
}

#[derive(Default)]
pub(super) struct Rendered {
    pub(super) blocks: Vec<Block>,
    pub(super) anchors: Vec<AnchorOcc>,
}

#[derive(Default)]
struct Renderer {
    out: Rendered,
    cur: Vec<char>,
    prom: Vec<(usize, usize)>,
    prom_depth: usize,
    anchor: Option<OpenAnchor>,
    /// How many quoted regions the renderer is inside.
    quote_depth: usize,
    /// A character of the current block was inside a quoted region.
    cur_quoted: bool,
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
                quoted: self.cur_quoted,
                one_apart: false,
            });
        }
        self.cur.clear();
        self.prom.clear();
        self.cur_quoted = false;
    }

    fn push_char(&mut self, c: char) {
        if c == ' ' && (self.cur.is_empty() || self.cur.last() == Some(&' ')) {
            return;
        }
        let at = self.cur.len();
        self.cur.push(c);
        if self.quote_depth > 0 {
            self.cur_quoted = true;
        }
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
            if let Some(a) = self.anchor.as_mut()
                && (c != ' ' || a.text.chars().last().is_some_and(|l| l != ' '))
            {
                a.text.push(c);
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
            quoted: self.quote_depth > 0,
            one_apart: true,
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
            self.anchor = Some(self.open_anchor(href.to_string(), is_button(el)));
        }
        if name == "img"
            && let (Some(open), Some(a)) = (self.anchor.as_mut(), el.attr("alt"))
        {
            if !open.alt.is_empty() {
                open.alt.push(' ');
            }
            open.alt.push_str(a.trim());
        }
    }

    fn open_anchor(&self, href: String, button: bool) -> OpenAnchor {
        OpenAnchor {
            href,
            text: String::new(),
            alt: String::new(),
            button,
            block: self.out.blocks.len(),
            at: self.cur.len(),
        }
    }

    fn close_anchor(&mut self, open: OpenAnchor) {
        let text = open.text.trim();
        let text = if text.is_empty() {
            open.alt.trim()
        } else {
            text
        };
        let same_block = self.out.blocks.len() == open.block && !self.cur.is_empty();
        self.out.anchors.push(AnchorOcc {
            href: open.href,
            text: text.to_string(),
            block: open.block,
            span: same_block.then_some((open.at, self.cur.len())),
            button: open.button,
            quoted: self.quote_depth > 0,
        });
    }

    fn close(&mut self, el: &scraper::node::Element) {
        let name = el.name();
        if name == "a"
            && let Some(open) = self.anchor.take()
        {
            self.close_anchor(open);
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
            let ch = entity(&rest[1..e]);
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
                if let Some(open) = r.anchor.take() {
                    r.close_anchor(open);
                }
            } else if let Some(href) = attr_value(tag, "href") {
                r.anchor = Some(r.open_anchor(decode_entities(&href), false));
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

pub(super) fn render_html(html: &str) -> Rendered {
    if nesting_depth(html) > MAX_NESTING {
        return render_html_flat(html);
    }
    let doc = Html::parse_document(html);
    let quoted = quoted_regions(&doc);
    let mut r = Renderer::default();
    let mut stack = vec![(doc.tree.root(), false)];
    while let Some((node, exiting)) = stack.pop() {
        match node.value() {
            Node::Text(t) => r.text(t),
            Node::Element(el) => {
                let region = quoted.contains(&node.id());
                if exiting {
                    r.close(el);
                    if region {
                        r.quote_depth = r.quote_depth.saturating_sub(1);
                    }
                    continue;
                }
                if SKIPPED.contains(&el.name()) {
                    continue;
                }
                if region {
                    r.quote_depth += 1;
                }
                if let Some(code) = ElementRef::wrap(node).and_then(split_code) {
                    r.push_whole(code);
                    if region {
                        r.quote_depth -= 1;
                    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::extract::test_mail::*;

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
}
