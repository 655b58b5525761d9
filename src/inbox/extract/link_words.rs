//! The vocabulary of verification links: words that mark the link to follow, those that mark
//! links never to follow (undo, destroy, unsubscribe, privacy, social, images, pixels).

use crate::vocabulary::links::{LOGIN_STEMS, STRONG_STEMS};
use crate::vocabulary::words::first_stem;

pub(super) fn contains_word(hay: &str, needle: &str) -> bool {
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

/// What a text's words say a link does, and the words that say it: [`Intent::Confirm`] for
/// the strong words, [`Intent::SignIn`] for sign-in, password and invitation words, strongest
/// first.
pub(super) fn intent(ws: &[String]) -> Option<(Intent, String)> {
    if let Some(s) = first_stem(ws, STRONG_STEMS) {
        return Some((Intent::Confirm, s));
    }
    first_stem(ws, LOGIN_STEMS).map(|s| (Intent::SignIn, s))
}

/// The two kinds of wording that mark the link to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Intent {
    /// verify, confirm, activate, magic link…
    Confirm,
    /// sign in, log in, reset or set a password, accept an invitation…
    SignIn,
}
