//! Link wrappers: Outlook Safe Links and redirectors that carry the real target in a query
//! parameter are unwrapped; a verification link that merely carries a `redirect=` is not one.

use url::Url;

use super::link_words::intent;
use crate::vocabulary::links::{TOKEN_KEYS, WRAPPER_KEYS};
use crate::vocabulary::words::words;

/// Whether `u` is a page a browser can open: http(s) with a host.
pub(super) fn is_http(u: &Url) -> bool {
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
        if intent(&words(&path)).is_some()
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

pub(super) fn unwrap_url(mut u: Url) -> Url {
    for _ in 0..5 {
        match wrapped_target(&u) {
            Some(t) => u = t,
            None => break,
        }
    }
    u
}

#[cfg(test)]
mod tests {
    use crate::inbox::extract::test_mail::*;

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
}
