//! OTP and verification-link extraction from raw RFC 5322 messages: pure functions, no I/O.
//! Owns the public surface; its children read MIME, HTML, codes and links, one layer each.

mod decode;
mod html;
mod link;
mod link_rank;
mod link_words;
mod otp;
mod otp_candidates;
mod otp_labels;
mod quoted;
mod ranking;
mod reason;
mod structured;
#[cfg(test)]
mod test_mail;
mod wrapper;

use url::Url;

use crate::lock::Undoing;
use link::ranked_links;
pub use link_rank::RankedLink;
use link_rank::describe_words;
use otp::find_otp_inner;
pub use reason::{Place, Reason, worded};

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
    /// Why this code: what marks it (`a code word 2 characters before it`, `set apart on its
    /// own line`, `in the text part`).
    pub reasons: Vec<Reason>,
    /// The rule that ranked it ahead of the next code (`set_apart_as_code`, `details`…), when
    /// the message held another.
    pub decided_by: Option<&'static str>,
}

/// The verification / magic / sign-in link chosen from a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The absolute http(s) URL to open, with known wrappers (Outlook Safe Links, `?url=`
    /// redirectors) already removed. Accepted by the caller's `allowed` predicate.
    pub url: Url,
    /// The anchor's text (or `alt` text of its image); for a bare URL, the sentence before it.
    pub anchor_text: String,
    /// How strongly the message marks this link as the one to follow (higher is better, > 0).
    pub score: i32,
    /// Why it was chosen: what its text, sentence and address say.
    pub reasons: Vec<Reason>,
    /// The words of the step's `describe` the link's words matched.
    pub described: Vec<String>,
    /// The rule that ranked it ahead of the next link the run could open (`own_text`,
    /// `words`), when the message held another.
    pub decided_by: Option<&'static str>,
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
    /// The only links that look like the one to follow undo or destroy something (cancel,
    /// invalidate, "not you", remove, delete, unsubscribe…): they are never opened.
    #[error(
        "the only link in the message that looks like the one to follow undoes something ({why}): {url}"
    )]
    Refused {
        /// The best such link.
        url: Box<Url>,
        /// What says it undoes something (its sentence says "cancel").
        why: Undoing,
    },
    /// Two links to different places stay equally plausible after every rule.
    #[error("two links in the message are equally plausible: {first} and {second}")]
    Ambiguous {
        /// The first of them in the message.
        first: Box<Url>,
        second: Box<Url>,
    },
}

/// Why [`find_otp`] returned no code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OtpError {
    /// Nothing in the message is marked as a one-time code.
    #[error("the message marks no one-time code")]
    NoCode,
    /// Two different codes stay equally plausible after every rule (masked here).
    #[error("two different codes in the message are equally plausible: {first} and {second}")]
    Ambiguous {
        /// The codes, masked with [`mask_code`].
        first: String,
        second: String,
    },
}

/// Finds the one-time code in a raw message, or `None` when nothing is marked as a code.
///
/// `recipient` is this run's own address: digits inside it (`test+1234@…`) are never a code.
/// Looks at the subject, the text parts and the HTML parts. Whether a candidate is a code is
/// decided by where it stands, never by whether its letters spell a word: a code word in its
/// sentence or ending the line before, its own line or a prominent element, or the subject
/// (the last two when the mail uses a code word somewhere). What stands around it rules it out
/// the same way: a label that names something else (order, ticket, promo…), a sentence that
/// offers a discount, a sign-off above it, a footer. Prices, CSS colours, `<style>` contents,
/// numbers next to a month name and digits inside URLs or e-mail addresses are never returned;
/// years and phone- or date-shaped numbers only where a code word or their own line marks
/// them. Candidates then
/// rank by named rules in order: the mail's own text before quoted parts and other users'
/// notes; a code the body sets apart and a code word marks or its line before introduces,
/// which nothing in the subject or inside a sentence (where a user's name or title can stand)
/// outranks; the body before the subject (a subject's code counts only when the body holds
/// none); marked by a code word; the text part before HTML; the finer details. Two different codes ranked exactly alike are [`OtpError::Ambiguous`]. Malformed
/// MIME returns [`OtpError::NoCode`].
pub fn find_otp(raw: &[u8], recipient: &str) -> Result<Otp, OtpError> {
    crate::inbox::read_untrusted("a code", Err(OtpError::NoCode), || {
        find_otp_inner(raw, recipient)
    })
}

/// Every link of a raw message as [`find_link`] judges it, best first: its score, the reasons,
/// whether it sits in a quoted part, and why it is refused when it undoes something.
/// `describe` is the step's description of the link (`the link to set a password`).
pub fn read_links(raw: &[u8], describe: Option<&str>) -> Vec<RankedLink> {
    let words = describe_words(describe);
    crate::inbox::read_untrusted("the links", Vec::new(), || ranked_links(raw, &words))
}

/// Picks the verification / magic / sign-in link of a raw message, the way a person reads it.
///
/// Anchors and bare URLs of the HTML and text parts are judged by the sentence that introduces
/// them (the line before a bare URL, the text around and inside an anchor, a button's label)
/// and by their path, words matched as words (`Invalidate` is not `validate`; a `login=`
/// parameter does not make a log-in link). `describe`'s words rank the candidates. A link
/// whose text, sentence or path says it undoes or destroys (cancel, invalidate, not you, did
/// not request, remove, delete, close the account, report, unsubscribe, in several languages)
/// is never chosen, nor a `List-Unsubscribe` URL; a schema.org `ConfirmAction`/`ViewAction`
/// in the HTML names the link. Unsubscribe, privacy, help, terms, social, image and pixel
/// links, and anything not http(s), are no candidates. Known wrappers (Outlook Safe Links,
/// redirectors carrying the target in `url=`/`u=`/…) are unwrapped first. Links in quoted
/// parts rank below the mail's own. `allowed` is the run's plan lock: a candidate for which
/// it returns false is never chosen ([`LinkError::OnlyOutside`] when only such remain). Two
/// links to different places ranked alike are [`LinkError::Ambiguous`].
pub fn find_link(
    raw: &[u8],
    describe: Option<&str>,
    allowed: &dyn Fn(&Url) -> bool,
) -> Result<Link, LinkError> {
    let ranked = read_links(raw, describe);
    let mut outside: Vec<Url> = Vec::new();
    let mut refused: Option<(Url, Undoing)> = None;
    let mut chosen: Option<&RankedLink> = None;
    let mut decided_by = None;
    for cand in &ranked {
        if let Some(why) = &cand.refused {
            if refused.is_none() && allowed(&cand.link.url) {
                refused = Some((cand.link.url.clone(), why.clone()));
            }
            continue;
        }
        if !allowed(&cand.link.url) {
            outside.push(cand.link.url.clone());
            continue;
        }
        match chosen {
            None => chosen = Some(cand),
            Some(best) => {
                decided_by = ranking::decided_by(best, cand, &link_rank::LINK_RULES);
                if decided_by.is_none() && !same_place(&best.link.url, &cand.link.url) {
                    return Err(LinkError::Ambiguous {
                        first: Box::new(best.link.url.clone()),
                        second: Box::new(cand.link.url.clone()),
                    });
                }
                break;
            }
        }
    }
    if let Some(best) = chosen {
        return Ok(Link {
            decided_by,
            ..best.link.clone()
        });
    }
    match (outside.is_empty(), refused) {
        (false, _) => Err(LinkError::OnlyOutside {
            candidates: outside,
        }),
        (true, Some((url, why))) => Err(LinkError::Refused {
            url: Box::new(url),
            why,
        }),
        (true, None) => Err(LinkError::NoCandidates),
    }
}

/// What says that a page at `url` undoes or destroys something (a word of its address, or
/// of an address it carries for afterwards, as `/redir?to=/account/delete` does), if
/// anything does: the rule an emailed link is judged by, and every hop of the navigation it
/// starts.
pub fn undoing_destination(url: &Url) -> Option<Undoing> {
    link_rank::undoing_destination(url)
}

/// Two URLs lead to the same place when they differ at most in their fragment.
fn same_place(a: &Url, b: &Url) -> bool {
    let strip = |u: &Url| {
        let mut u = u.clone();
        u.set_fragment(None);
        u
    };
    strip(a) == strip(b)
}

/// The first words of `text` that say a link undoes or destroys something (`cancel`,
/// `unsubscribe`, `deleting`, `not you`…, in the languages links are read in), if any: a link
/// described so is never opened.
pub fn undoing_word(text: &str) -> Option<String> {
    crate::vocabulary::words::undoing(&crate::vocabulary::words::words(text))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::extract::test_mail::*;

    #[test]
    fn malformed_input_never_panics() {
        for raw in [
            &b""[..],
            b"\xff\xfe\x00garbage",
            b"Content-Type: multipart/alternative; boundary=\"x\"\r\n\r\n--x\r\nContent-Transfer-Encoding: base64\r\n\r\n%%%%\r\n",
            b"Subject: =?utf-8?B?####?=\r\n\r\n",
        ] {
            let _ = find_otp(raw, "a@b.test");
            let _ = find_link(raw, None, &|_| true);
        }
    }

    // The guard around the readers is off in tests (`read_untrusted`): a panic fails these.
    proptest::proptest! {
        #[test]
        fn generated_mails_are_read_without_panicking(
            raw in crate::inbox::generated_mail::mail(),
            describe in proptest::option::of("[a-z ]{0,20}"),
        ) {
            let _ = find_otp(&raw, "test+1234@inbox.test");
            for l in read_links(&raw, describe.as_deref()) {
                proptest::prop_assert!(matches!(l.link.url.scheme(), "http" | "https"), "{}", l.link.url);
            }
            let _ = find_link(&raw, describe.as_deref(), &|_| true);
        }

        #[test]
        fn any_bytes_are_read_without_panicking(raw in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let _ = find_otp(&raw, "a@b.test");
            let _ = find_link(&raw, None, &|_| true);
        }

        /// A code the mail names in a sentence of its own is found, whatever plain words,
        /// markup and part type surround it.
        #[test]
        fn a_code_the_mail_names_is_found(
            code in "[1-9][0-9]{5}",
            before in proptest::collection::vec(proptest::sample::select(FILLER), 0..12),
            after in proptest::collection::vec(proptest::sample::select(FILLER), 0..12),
            as_html in proptest::prelude::any::<bool>(),
        ) {
            let (before, after) = (before.join(" "), after.join(" "));
            let raw = if as_html {
                html_mail(
                    "Welcome",
                    &format!("<p>{before}</p><p>Your verification code is <b>{code}</b></p><p>{after}</p>"),
                )
            } else {
                text_mail(
                    "Welcome",
                    &format!("{before}\r\n\r\nYour verification code is {code}\r\n\r\n{after}"),
                )
            };
            proptest::prop_assert_eq!(otp(&raw), Some(code));
        }
    }

    /// Plain words of a mail that name nothing a code could be.
    const FILLER: &[&str] = &[
        "hello", "thanks", "for", "joining", "welcome", "to", "the", "team", "see", "you", "soon",
        "please", "use", "it", "within", "minutes", "cheers",
    ];

    #[test]
    fn mask_keeps_at_most_two_characters() {
        assert_eq!(mask_code("482913"), "48••••");
        assert_eq!(mask_code("G-482913"), "G-••••••");
        assert_eq!(mask_code("4X7-K2P"), "4X•-•••");
        assert_eq!(mask_code("4821"), "4•••");
        assert_eq!(mask_code(""), "");
    }

    /// The chosen code and link say which rule put them ahead of the next candidate.
    #[test]
    fn the_rule_that_decided_is_recorded() {
        let raw = text_mail(
            "Welcome",
            "Your verification code:\r\n\r\n482913\r\n\r\nWe also sent the code 739201 to your phone.",
        );
        let otp = find_otp(&raw, "test+1234@inbox.test").unwrap();
        assert_eq!(
            (otp.code.as_str(), otp.decided_by),
            ("482913", Some("set_apart_as_code"))
        );
        let alone = find_otp(&text_mail("x", "Your code is 482913"), "a@b.test").unwrap();
        assert_eq!(alone.decided_by, None, "no other code to rank it against");

        let html = r#"<p><a href="https://shop.example/verify?token=abc">Verify your email</a></p>
            <blockquote><a href="https://shop.example/verify?token=def">Verify your email</a></blockquote>"#;
        let l = find_link(&html_mail("Verify", html), None, &|_| true).unwrap();
        assert_eq!(
            (l.url.as_str(), l.decided_by),
            ("https://shop.example/verify?token=abc", Some("own_text"))
        );
        let html = r#"<p><a href="https://shop.example/verify?token=abc">Verify your email</a></p>
            <p><a href="https://shop.example/login">Sign in</a></p>"#;
        let l = find_link(&html_mail("Verify", html), None, &|_| true).unwrap();
        assert_eq!(l.decided_by, Some("words"));
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
}
