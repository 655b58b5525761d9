//! Verification-link candidates: every anchor and bare URL of the HTML and text parts, with
//! the sentence a reader sees around or before it, judged by [`super::link_rank`] and merged
//! with what the sender declared ([`super::structured`]), best first.

use super::decode::{Block, decode};
use super::html::render_html;
use super::link_rank::{DECLARED, Described, LINK_RULES, Occurrence, RankedLink, rank};
use super::quoted::quoted_lines;
use super::ranking;
use super::reason::Reason;
use super::structured::declared;
use crate::lock::Undoing;
use crate::vocabulary::mail::SENTENCE_ENDS;

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

/// Where the sentences of `s` start (char-boundary byte offsets), the first at 0.
fn sentence_starts(s: &str) -> Vec<usize> {
    let mut starts = vec![0];
    for end in SENTENCE_ENDS {
        starts.extend(s.match_indices(end).map(|(i, m)| i + m.len()));
    }
    starts.sort_unstable();
    starts.dedup();
    starts.retain(|&i| i <= s.len());
    starts
}

/// How much of the sentence before a link the ranking reads: its end, the last words within
/// this many characters (an introduction, not the conditions a long sentence opens with).
const WINDOW: usize = 80;

/// The last sentence of `s`, whole, and the one before it when that is a question (`Not
/// you?`).
fn last_sentence(s: &str) -> (String, String) {
    let s = s.trim_end();
    let body = s.trim_end_matches(|c: char| !c.is_alphanumeric());
    let starts = sentence_starts(body);
    let cut = starts.last().copied().unwrap_or(0);
    let clause = &s[cut..];
    let lead = match starts.len() {
        n if n >= 2 => {
            let prev = s[starts[n - 2]..cut].trim();
            if prev.ends_with('?') || prev.ends_with('？') {
                prev.to_string()
            } else {
                String::new()
            }
        }
        _ => String::new(),
    };
    (clause.to_string(), lead)
}

/// The end of `sentence` the ranking reads: its last words within [`WINDOW`] characters of
/// label (trailing punctuation aside), never part of a word ("o confirm" was once what an
/// 81-character sentence left).
fn window(sentence: &str) -> &str {
    let mut at = sentence.len() - sentence.trim_start().len();
    while clean_label(&sentence[at..]).chars().count() > WINDOW {
        let rest = &sentence[at..];
        // Past the word at `at` and the gap after it; in a script written without spaces,
        // past one character.
        let step = match rest.find(char::is_whitespace) {
            Some(word) => word + rest[word..].len() - rest[word..].trim_start().len(),
            None => rest.chars().next().map_or(0, char::len_utf8),
        };
        if step == 0 || at + step >= sentence.len() {
            break;
        }
        at += step;
    }
    &sentence[at..]
}

/// The whole sentence of `line` around the byte range `start..end` (an inline link), and the
/// question before it.
fn sentence_around(line: &str, start: usize, end: usize) -> (String, String) {
    let starts = sentence_starts(line);
    let from = starts
        .iter()
        .rev()
        .find(|&&i| i <= start)
        .copied()
        .unwrap_or(0);
    let to = starts
        .iter()
        .find(|&&i| i >= end)
        .copied()
        .unwrap_or(line.len());
    (
        line[from..to].trim().to_string(),
        lead_or_sentence(&line[..from]),
    )
}

/// The sentence that ends `s` when it is a question, else nothing.
fn lead_or_sentence(s: &str) -> String {
    let (last, _) = last_sentence(s);
    let t = s.trim_end();
    if t.ends_with('?') || t.ends_with('？') {
        window(&last).to_string()
    } else {
        String::new()
    }
}

/// A line that holds nothing but URLs (and punctuation).
fn only_urls(line: &str) -> bool {
    let mut rest = line.to_string();
    for (_, url) in bare_urls(line) {
        rest = rest.replacen(&url, " ", 1);
    }
    !bare_urls(line).is_empty() && rest.chars().all(|c| !c.is_alphanumeric())
}

/// The bare URLs of one line of text, with the sentence before each. `previous` is the line
/// above (the nearest with text) and `quoted` whether the line is someone else's text.
fn push_bare(out: &mut Vec<Occurrence>, line: &str, previous: Option<&str>, quoted: bool) {
    for (s, url) in bare_urls(line) {
        let before = &line[..s];
        let (mut sentence, mut lead) = last_sentence(before);
        if clean_label(&sentence).is_empty() {
            // a URL on its own line: the line before introduces it, unless that line is a
            // URL itself (then it introduced that one)
            (sentence, lead) = previous
                .filter(|p| !only_urls(p))
                .map(last_sentence)
                .unwrap_or_default();
        } else if lead.is_empty() && sentence_starts(before.trim_end()).len() == 1 {
            lead = previous.map(lead_or_sentence).unwrap_or_default();
        }
        out.push(Occurrence {
            href: url,
            anchor: None,
            sentence: clean_label(window(&sentence)),
            said: clean_label(&sentence),
            intro: String::new(),
            lead,
            paragraph: line.to_string(),
            button: false,
            quoted,
        });
    }
}

/// Every link shown in the message, ranked and merged per URL, best first (refused links
/// last). `describe` are the content words of the step's `describe`.
pub(super) fn ranked_links(raw: &[u8], describe: &Described) -> Vec<RankedLink> {
    let Some(d) = decode(raw) else {
        return Vec::new();
    };
    let mut occs: Vec<Occurrence> = Vec::new();
    for h in &d.htmls {
        let rendered = render_html(h);
        let blocks = &rendered.blocks;
        let text_of = |i: usize| blocks.get(i).map(Block::text);
        for a in &rendered.anchors {
            let block_text = text_of(a.block).unwrap_or_default();
            let previous = a.block.checked_sub(1).and_then(text_of);
            let anchor = a.text.trim();
            let alone = match a.span {
                None => true,
                Some(_) => clean_label(&block_text) == clean_label(anchor),
            };
            let (sentence, lead, intro) = match a.span {
                Some((s, e)) if !alone => {
                    let chars: Vec<char> = block_text.chars().collect();
                    let byte =
                        |i: usize| chars[..i.min(chars.len())].iter().collect::<String>().len();
                    let (sentence, mut lead) = sentence_around(&block_text, byte(s), byte(e));
                    if lead.is_empty() && sentence_starts(&block_text[..byte(s)]).len() == 1 {
                        lead = previous
                            .as_deref()
                            .map(lead_or_sentence)
                            .unwrap_or_default();
                    }
                    (sentence, lead, String::new())
                }
                _ => {
                    let (intro, lead) = previous
                        .as_deref()
                        .filter(|p| !only_urls(p))
                        .map(last_sentence)
                        .unwrap_or_default();
                    (String::new(), lead, window(&intro).to_string())
                }
            };
            occs.push(Occurrence {
                href: a.href.clone(),
                anchor: Some(anchor.to_string()),
                sentence,
                intro,
                lead,
                paragraph: block_text.clone(),
                button: a.button,
                quoted: a.quoted,
                said: String::new(),
            });
        }
        for (i, b) in blocks.iter().enumerate() {
            let previous = i.checked_sub(1).and_then(text_of);
            push_bare(&mut occs, &b.text(), previous.as_deref(), b.quoted);
        }
    }
    for t in &d.texts {
        let lines: Vec<&str> = t.lines().collect();
        let quoted = quoted_lines(&lines);
        for (i, line) in lines.iter().enumerate() {
            let previous = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .copied();
            push_bare(&mut occs, line, previous, quoted[i]);
        }
    }
    let declared = declared(raw, &d.htmls);
    for (url, name) in &declared.actions {
        occs.push(Occurrence {
            href: url.to_string(),
            anchor: Some(name.clone()),
            ..Occurrence::default()
        });
    }
    let mut best: Vec<RankedLink> = Vec::new();
    for occ in &occs {
        let Some(r) = rank(occ, describe) else {
            continue;
        };
        match best.iter_mut().find(|b| b.link.url == r.link.url) {
            Some(b) => {
                // a URL refused anywhere is refused; it is someone else's only if every
                // occurrence is
                let refused = b.refused.take().or(r.refused.clone());
                let quoted = b.quoted && r.quoted;
                if r.link.score > b.link.score {
                    *b = r;
                }
                b.refused = refused;
                b.quoted = quoted;
            }
            None => best.push(r),
        }
    }
    for b in &mut best {
        if declared.actions.iter().any(|(u, _)| *u == b.link.url) {
            b.link.score += DECLARED;
            b.link.reasons.push(Reason::JsonLdAction);
        }
        if b.refused.is_none() && declared.unsubscribe.contains(&b.link.url) {
            b.refused = Some(Undoing::ListUnsubscribe);
        }
    }
    // stable: ties keep document order (and are then refused as ambiguous by the caller)
    ranking::sort(&mut best, &LINK_RULES, |b| b);
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::extract::test_mail::*;
    use crate::inbox::extract::{LinkError, find_link, read_links, worded};
    use crate::lock::UndoingPlace;

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
        match link(&m, "shop.example") {
            Err(LinkError::Refused { url, why }) => {
                assert_eq!(url.as_str(), "https://accounts.shop.example/reset");
                let place = UndoingPlace::QuestionBefore;
                let word = "not you".to_string();
                assert_eq!(why, Undoing::Says { place, word });
            }
            other => panic!("a link under \"Not you?\" is refused, not {other:?}"),
        }
        let html = r#"<p>If you don't recognize this account, <a href="https://shop.example/remove?token=abc">click here</a>.</p>"#;
        assert!(matches!(
            link(&html_mail("Code", html), "shop.example"),
            Err(LinkError::Refused { .. })
        ));
    }

    #[test]
    fn describe_chooses_between_genuine_links_and_never_unlocks_an_undoing_one() {
        let html = r#"<p><a class="button" href="https://desk.example/email/verify?token=abc">Verify your email</a></p>
            <p><a class="button" href="https://desk.example/password/new?token=def">Set your password</a></p>
            <p>Not you? <a href="https://desk.example/account/delete?token=ghi">Delete this account</a></p>"#;
        let m = html_mail("Your account", html);
        assert_eq!(
            link(&m, "desk.example").unwrap(),
            "https://desk.example/email/verify?token=abc"
        );
        assert_eq!(
            link_described(&m, "the link to set a password", "desk.example").unwrap(),
            "https://desk.example/password/new?token=def"
        );
        assert_eq!(
            link_described(&m, "the link to delete the account", "desk.example").unwrap(),
            "https://desk.example/email/verify?token=abc"
        );
    }

    /// Words a describe names to avoid count against the links that say them: "the link to sign
    /// in, not the confirm link" takes the sign-in link over the stronger confirm link.
    #[test]
    fn words_under_a_negation_count_against_a_link() {
        let html = r#"<p><a class="button" href="https://desk.example/email/confirm?token=abc">Confirm your address</a></p>
            <p><a class="button" href="https://desk.example/login?token=def">Sign in to your account</a></p>"#;
        let m = html_mail("Your account", html);
        assert_eq!(
            link_described(&m, "the confirm link", "desk.example").unwrap(),
            "https://desk.example/email/confirm?token=abc"
        );
        assert_eq!(
            link_described(
                &m,
                "the link to sign in, not the confirm link",
                "desk.example"
            )
            .unwrap(),
            "https://desk.example/login?token=def"
        );
        let ranked = read_links(&m, Some("the link to sign in, not the confirm link"));
        let confirm = ranked
            .iter()
            .find(|l| l.link.url.path() == "/email/confirm")
            .unwrap();
        assert!(
            confirm.link.reasons.contains(&Reason::DescribeAvoids {
                words: vec!["confirm".into()]
            }),
            "{:?}",
            confirm.link.reasons
        );
    }

    #[test]
    fn a_warning_above_a_button_does_not_refuse_the_button() {
        // the usual closing lines above a genuine button, and a generic link under "Not you?"
        let html = r#"<p>Welcome! Didn't sign up? Just ignore this email.</p>
            <p><a class="button" href="https://shop.example/email/verify?token=abc">Verify your email</a></p>
            <p>Not you? <a href="https://shop.example/account/remove?token=def">Click here</a>.</p>"#;
        let m = html_mail("Verify", html);
        assert_eq!(
            link(&m, "shop.example").unwrap(),
            "https://shop.example/email/verify?token=abc"
        );
        let refused = read_links(&m, None)
            .into_iter()
            .find(|l| l.link.url.path() == "/account/remove")
            .unwrap();
        assert!(refused.refused.is_some(), "{refused:?}");
    }

    #[test]
    fn what_happens_if_you_do_not_verify_is_not_what_the_link_does() {
        let m = text_mail(
            "Verify",
            "Please verify your email within 7 days, or your account will be deleted: \
             https://shop.example/email/verify?token=abcdefghijklmnop\n",
        );
        assert_eq!(
            link(&m, "shop.example").unwrap(),
            "https://shop.example/email/verify?token=abcdefghijklmnop"
        );
        let m = text_mail(
            "Delete",
            "To delete your account, confirm here: https://shop.example/confirm?token=abcdefghijklmnop\n",
        );
        assert!(matches!(
            link(&m, "shop.example"),
            Err(LinkError::Refused { .. })
        ));
    }

    #[test]
    fn what_the_sender_declares_counts_and_a_quotation_ranks_last() {
        // Gmail's one-click action names the link; the header's unsubscribe URL is refused
        let html = r#"<script type="application/ld+json">{"@context":"http://schema.org",
              "@type":"EmailMessage","potentialAction":{"@type":"ConfirmAction","name":"Confirm",
              "handler":{"@type":"HttpActionHandler","url":"https://shop.example/c?token=abc"}}}</script>
            <p><a href="https://shop.example/account/verify?token=def">Verify your account</a></p>
            <p><a href="https://shop.example/c?token=abc">Confirm here</a></p>"#;
        let m = html_mail("Confirm", html);
        let chosen = find_link(&m, None, &|_| true).unwrap();
        assert_eq!(chosen.url.as_str(), "https://shop.example/c?token=abc");
        assert!(chosen.reasons.contains(&Reason::JsonLdAction));
        let raw = b"From: a@shop.example\r\nTo: b@inbox.test\r\nSubject: News\r\n\
            List-Unsubscribe: <https://shop.example/n/confirm?token=abcdefghijklmnop>, <mailto:u@shop.example>\r\n\
            Content-Type: text/plain\r\n\r\nConfirm: https://shop.example/n/confirm?token=abcdefghijklmnop\r\n";
        assert!(matches!(
            link(raw, "shop.example"),
            Err(LinkError::Refused {
                why: Undoing::ListUnsubscribe,
                ..
            })
        ));
        // a quoted message's link, however well worded, comes after the mail's own
        let html = r#"<p>Bob replied to your ticket. Accept his answer:
            <a href="https://desk.example/t/1/accept?token=abc">accept the answer</a></p>
            <blockquote><p>Please <a href="https://desk.example/u/bob/verify?token=def">verify
            your email address now</a>.</p></blockquote>"#;
        assert_eq!(
            link(&html_mail("Reply", html), "desk.example").unwrap(),
            "https://desk.example/t/1/accept?token=abc"
        );
    }

    #[test]
    fn the_sentence_before_a_bare_url_introduces_it() {
        let m = text_mail(
            "Login Details",
            "To set your password, visit the following address:\n\n\
             https://words.example/wp-login.php?action=rp&key=abcdefghijklmnop&login=bob\n\n\
             https://words.example/wp-login.php\n",
        );
        let chosen = find_link(&m, None, &|_| true).unwrap();
        assert_eq!(
            chosen.url.as_str(),
            "https://words.example/wp-login.php?action=rp&key=abcdefghijklmnop&login=bob"
        );
        assert!(
            worded(&chosen.reasons)
                .iter()
                .any(|r| r.contains("password")),
            "{:?}",
            chosen.reasons
        );
        // the log-in URL under it is introduced by nothing: only its path speaks for it
        let login = read_links(&m, None)
            .into_iter()
            .find(|l| l.link.url.as_str() == "https://words.example/wp-login.php")
            .unwrap();
        assert_eq!(worded(&login.link.reasons), ["its address says \"login\""]);
        assert!(login.link.score < chosen.score);
    }

    /// DokuWiki's reset mail introduces its link with an 81-character sentence: its recorded
    /// text is that sentence whole, and the ranking's window of it loses words, never letters.
    #[test]
    fn a_bare_urls_recorded_text_is_its_sentence_whole() {
        let raw = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/emails/apps/dokuwiki_password_reset.eml"
        ))
        .unwrap();
        let link = super::super::find_link(&raw, None, &|_| true).unwrap();
        assert_eq!(
            link.anchor_text,
            "To confirm that the request was really sent by you please use the following link"
        );
        let long = "If you asked for it, and only then, to confirm that the request was really \
                    sent by you please use the following link.";
        assert_eq!(
            window(long),
            "to confirm that the request was really sent by you please use the following link."
        );
        assert_eq!(window("Confirm your email:"), "Confirm your email:");
    }

    #[test]
    fn bare_url_label_is_the_clause_just_before_it() {
        assert_eq!(
            last_sentence("Not you? Thanks for joining. Confirm your email: ").0,
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
