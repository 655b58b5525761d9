//! OTP and verification-link extraction from raw RFC 5322 messages: pure functions, no I/O.
//! Owns the public surface; its children read MIME, HTML, codes and links, one layer each.

mod decode;
mod html;
mod link;
mod link_words;
mod otp;
mod otp_candidates;
mod otp_labels;
#[cfg(test)]
mod test_mail;
mod wrapper;

use std::panic::{AssertUnwindSafe, catch_unwind};

use url::Url;

use link::link_candidates;
use otp::find_otp_inner;

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
