//! Verification-link candidates: anchors and bare URLs of the HTML and text parts, each scored
//! by its anchor text, URL words and surrounding line, best first.

use url::Url;

use super::decode::{Block, decode};
use super::html::render_html;
use super::link_words::{
    BAD_ANCHORS, BAD_URL_PARTS, BAD_URL_WORDS, CONTEXT_NEG, IMAGE_EXTS, SOCIAL_HOSTS, TOKEN_KEYS,
    WEAK_ANCHORS, contains_word, stem_score,
};
use super::wrapper::{is_http, unwrap_url};

/// A link worth following, with how strongly the message marks it.
#[derive(Debug, Clone)]
pub(super) struct ScoredLink {
    pub(super) url: Url,
    pub(super) anchor_text: String,
    pub(super) score: i32,
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

pub(super) fn link_candidates(raw: &[u8]) -> Vec<ScoredLink> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::extract::LinkError;
    use crate::inbox::extract::test_mail::*;

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
