//! How the lock's refusals and its request-time errors are worded: where a run may not go, and
//! why a request's lock cannot be made. The lock decides and records the facts
//! ([`Refusal`], [`LockError`], [`Undoing`]); every sentence about them is made here.

use std::fmt;
use std::net::{IpAddr, SocketAddr};

use crate::lock::{Asker, LockError, Refusal, Sites, Undoing, UndoingPlace, Why, is_literally};

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.said(f)?;
        match self.by {
            None => Ok(()),
            Some(Asker::Popup) => f.write_str(
                " It was asked for by a popup the page opened (`window.open`, a \
                 `target=_blank` link or form), which was closed.",
            ),
            Some(Asker::Frame) => f.write_str(" It was asked for by a frame of the page."),
            Some(Asker::Script) => f.write_str(
                " It was asked for by a script of the page (`fetch`, XHR, a beacon or a worker).",
            ),
        }
    }
}

impl Refusal {
    /// The sentence of the refusal itself, whoever asked.
    fn said(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = &self.url;
        match &self.why {
            Why::Scheme { scheme, allowed } => write!(
                f,
                "[plan] `{scheme}:` URLs are never visited: a run only visits http(s) pages \
                 inside its lock ({allowed})."
            ),
            Why::NoHost => write!(f, "[plan] {url} has no host."),
            Why::NotAUrl => write!(f, "[plan] `{url}` is not a URL."),
            Why::NotPart { shown, allowed } => write!(
                f,
                "[plan] {shown} is not part of this run. This run may visit: {allowed}. Links and \
                 text found in pages or emails cannot add to that set -- it was fixed from the \
                 request before any of it was read."
            ),
            Why::PrivateAddress { host, ip } => private_address(f, host, ip),
            Why::ServiceAddress { addr } => service_address(f, addr),
            Why::UnknownPage { error } => write!(
                f,
                "[plan] {url} was not loaded: the browser could not say which page asked for it \
                 ({error})."
            ),
            Why::SecretLeaving { forms } => {
                write!(
                    f,
                    "[plan] a request to {url} carries a value this run typed (a secret or an \
                     emailed code), which may go "
                )?;
                match forms.as_slice() {
                    [] => write!(f, "nowhere: it was typed into a control outside any form")?,
                    [one] => write!(
                        f,
                        "only to the address of the form it was typed into, {one}"
                    )?,
                    many => write!(
                        f,
                        "only to the addresses of the forms it was typed into, {}",
                        many.join(" and ")
                    )?,
                }
                write!(f, ". It was not sent.")
            }
            Why::SecretByScript { sites } => {
                let sites = match sites.as_slice() {
                    [] => "the page it was typed on".to_string(),
                    many => many.join(" and "),
                };
                write!(
                    f,
                    "[plan] a request to {url} carries a value this run typed (a secret or an \
                     emailed code): a page's script may send it only while a click of the run \
                     submits it, and only to {sites}. It was not sent."
                )
            }
            Why::UndoingHop { said } => write!(
                f,
                "[plan] the emailed link led on to {url}, and {said}: a link from an email is \
                 never followed to a page that undoes or destroys something, whichever redirect \
                 leads there. It was not loaded."
            ),
        }
    }
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::NotAHost { given } => write!(
                f,
                "`{given}` is not a host name: give a host like `shop.example` or \
                 `127.0.0.1:8080` (wildcards are not needed: subdomains of a site are allowed \
                 with it)"
            ),
            LockError::PrivateAddress { host, ip } => private_address(f, host, ip),
            LockError::PortNotAllowed { shown, allowed } => write!(
                f,
                "[plan] {shown} is not allowed: the request allows {allowed} only."
            ),
            LockError::Unspecified { given } => write!(
                f,
                "[plan] `{given}` is the unspecified address, which means every address of this \
                 machine: a page sent there reaches whatever listens on it, so it is never an \
                 allowed host. Name the address the site listens on, such as `127.0.0.1:8080`."
            ),
            LockError::ServiceAddress { addr } => service_address(f, addr),
            LockError::Fixed { host } => write!(
                f,
                "[plan] cannot add {host} to a running plan's lock. The lock was fixed from the \
                 request before any page or email was read; allow the host when the run starts."
            ),
        }
    }
}

/// What says a link undoes something (`its sentence says "cancel"`), for both an emailed link
/// that is never opened and a hop of its navigation that is never loaded.
impl fmt::Display for Undoing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (place, word) = match self {
            Undoing::ListUnsubscribe => return f.write_str("the List-Unsubscribe header names it"),
            Undoing::Says { place, word } => (place, word),
        };
        match place {
            UndoingPlace::Text => f.write_str("its text")?,
            UndoingPlace::Sentence => f.write_str("its sentence")?,
            UndoingPlace::QuestionBefore => f.write_str("the question before it")?,
            UndoingPlace::LineBefore => f.write_str("the line before it")?,
            UndoingPlace::Address => f.write_str("its address")?,
            UndoingPlace::LeadsTo(url) => write!(f, "the address it leads to, {url},")?,
        }
        write!(f, " says \"{word}\"")
    }
}

/// `shop.example, 127.0.0.1:8080`, or that the request named none.
impl fmt::Display for Sites {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("nothing (no host was named in the request)")
        } else {
            f.write_str(&self.0.join(", "))
        }
    }
}

/// A page's refusal and a request's error say the same of a private address.
fn private_address(f: &mut fmt::Formatter<'_>, host: &str, ip: &IpAddr) -> fmt::Result {
    if is_literally(host, ip) {
        write!(
            f,
            "[plan] {ip} is a private, loopback or link-local address"
        )?;
    } else {
        write!(
            f,
            "[plan] {host} resolves to {ip}, a private, loopback or link-local address"
        )?;
    }
    write!(
        f,
        ", which the service never visits unless it is allowed explicitly."
    )
}

fn service_address(f: &mut fmt::Formatter<'_>, addr: &SocketAddr) -> fmt::Result {
    write!(
        f,
        "[plan] {addr} is this service's own address, which a run never reaches."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(s: &[&str]) -> Sites {
        Sites(s.iter().map(|s| s.to_string()).collect())
    }

    /// One sentence per reason, word for word: what a refused run shows.
    #[test]
    fn every_refusal_has_its_sentence() {
        let cases = [
            (
                Refusal::new(
                    "blob:http://shop.example/1",
                    Why::Scheme {
                        scheme: "blob".into(),
                        allowed: sites(&["shop.example"]),
                    },
                ),
                "[plan] `blob:` URLs are never visited: a run only visits http(s) pages inside \
                 its lock (shop.example).",
            ),
            (
                Refusal::new("http:/x", Why::NoHost),
                "[plan] http:/x has no host.",
            ),
            (
                Refusal::new("http://[", Why::NotAUrl),
                "[plan] `http://[` is not a URL.",
            ),
            (
                Refusal::new(
                    "http://127.0.0.1:9/",
                    Why::NotPart {
                        shown: "127.0.0.1:9".into(),
                        allowed: sites(&[]),
                    },
                ),
                "[plan] 127.0.0.1:9 is not part of this run. This run may visit: nothing (no \
                 host was named in the request). Links and text found in pages or emails cannot \
                 add to that set -- it was fixed from the request before any of it was read.",
            ),
            (
                Refusal::new(
                    "http://10.0.0.1/",
                    Why::PrivateAddress {
                        host: "10.0.0.1".into(),
                        ip: "10.0.0.1".parse().unwrap(),
                    },
                ),
                "[plan] 10.0.0.1 is a private, loopback or link-local address, which the service \
                 never visits unless it is allowed explicitly.",
            ),
            (
                Refusal::new(
                    "http://meta.shop.example/",
                    Why::PrivateAddress {
                        host: "meta.shop.example".into(),
                        ip: "169.254.169.254".parse().unwrap(),
                    },
                ),
                "[plan] meta.shop.example resolves to 169.254.169.254, a private, loopback or \
                 link-local address, which the service never visits unless it is allowed \
                 explicitly.",
            ),
            (
                Refusal::new(
                    "127.0.0.1:8080",
                    Why::ServiceAddress {
                        addr: "127.0.0.1:8080".parse().unwrap(),
                    },
                ),
                "[plan] 127.0.0.1:8080 is this service's own address, which a run never reaches.",
            ),
            (
                Refusal::new(
                    "http://shop.example/",
                    Why::UnknownPage {
                        error: "timed out".into(),
                    },
                ),
                "[plan] http://shop.example/ was not loaded: the browser could not say which \
                 page asked for it (timed out).",
            ),
            (
                Refusal::new(
                    "http://shop.example/comments",
                    Why::SecretLeaving { forms: vec![] },
                ),
                "[plan] a request to http://shop.example/comments carries a value this run typed \
                 (a secret or an emailed code), which may go nowhere: it was typed into a control \
                 outside any form. It was not sent.",
            ),
            (
                Refusal::new(
                    "http://shop.example/comments",
                    Why::SecretLeaving {
                        forms: vec!["http://shop.example/login".into()],
                    },
                ),
                "[plan] a request to http://shop.example/comments carries a value this run typed \
                 (a secret or an emailed code), which may go only to the address of the form it \
                 was typed into, http://shop.example/login. It was not sent.",
            ),
            (
                Refusal::new(
                    "http://shop.example/account/delete",
                    Why::UndoingHop {
                        said: Undoing::Says {
                            place: UndoingPlace::Address,
                            word: "delete".into(),
                        },
                    },
                ),
                "[plan] the emailed link led on to http://shop.example/account/delete, and its \
                 address says \"delete\": a link from an email is never followed to a page that \
                 undoes or destroys something, whichever redirect leads there. It was not \
                 loaded.",
            ),
            (
                Refusal::new(
                    "http://shop.example/go?to=/team/remove",
                    Why::UndoingHop {
                        said: Undoing::Says {
                            place: UndoingPlace::LeadsTo("http://shop.example/team/remove".into()),
                            word: "remove".into(),
                        },
                    },
                ),
                "[plan] the emailed link led on to http://shop.example/go?to=/team/remove, and the \
                 address it leads to, http://shop.example/team/remove, says \"remove\": a link \
                 from an email is never followed to a page that undoes or destroys something, \
                 whichever redirect leads there. It was not loaded.",
            ),
        ];
        for (refusal, sentence) in cases {
            assert_eq!(refusal.to_string(), sentence, "{:?}", refusal.why);
        }
    }

    /// What says an emailed link undoes something, in each place, word for word in the
    /// sentence of a mail step that opens no link.
    #[test]
    fn every_undoing_place_has_its_words() {
        let says = |place, word: &str| Undoing::Says {
            place,
            word: word.into(),
        };
        let cases = [
            (
                says(UndoingPlace::Text, "unsubscribe"),
                "its text says \"unsubscribe\"",
            ),
            (
                says(UndoingPlace::Sentence, "cancel"),
                "its sentence says \"cancel\"",
            ),
            (
                says(UndoingPlace::QuestionBefore, "not you"),
                "the question before it says \"not you\"",
            ),
            (
                says(UndoingPlace::LineBefore, "invalidate"),
                "the line before it says \"invalidate\"",
            ),
            (
                says(UndoingPlace::Address, "delete"),
                "its address says \"delete\"",
            ),
            (
                says(
                    UndoingPlace::LeadsTo("https://shop.example/account/delete?confirm=1".into()),
                    "delete",
                ),
                "the address it leads to, https://shop.example/account/delete?confirm=1, says \
                 \"delete\"",
            ),
            (
                Undoing::ListUnsubscribe,
                "the List-Unsubscribe header names it",
            ),
        ];
        for (why, words) in cases {
            let failure = super::super::Failure::LinkRefused {
                subject: "Welcome".into(),
                from: "hello@shop.example".into(),
                url: "https://shop.example/l/1".into(),
                why: why.clone(),
            };
            assert_eq!(
                failure.to_string(),
                format!(
                    "the email \"Welcome\" from hello@shop.example has no link to follow: its \
                     only candidate, https://shop.example/l/1, undoes or destroys something \
                     ({words}), and such a link is never opened"
                ),
                "{why:?}"
            );
        }
    }

    /// One sentence per lock request error, word for word.
    #[test]
    fn every_lock_error_has_its_sentence() {
        let cases = [
            (
                LockError::NotAHost {
                    given: "*.shop".into(),
                },
                "`*.shop` is not a host name: give a host like `shop.example` or \
                 `127.0.0.1:8080` (wildcards are not needed: subdomains of a site are allowed \
                 with it)",
            ),
            (
                LockError::PrivateAddress {
                    host: "[::1]".into(),
                    ip: "::1".parse().unwrap(),
                },
                "[plan] ::1 is a private, loopback or link-local address, which the service \
                 never visits unless it is allowed explicitly.",
            ),
            (
                LockError::PortNotAllowed {
                    shown: "127.0.0.1:25".into(),
                    allowed: sites(&["127.0.0.1:143", "shop.example"]),
                },
                "[plan] 127.0.0.1:25 is not allowed: the request allows 127.0.0.1:143, \
                 shop.example only.",
            ),
            (
                LockError::Unspecified {
                    given: "http://0.0.0.0:8080".into(),
                },
                "[plan] `http://0.0.0.0:8080` is the unspecified address, which means every \
                 address of this machine: a page sent there reaches whatever listens on it, so \
                 it is never an allowed host. Name the address the site listens on, such as \
                 `127.0.0.1:8080`.",
            ),
            (
                LockError::ServiceAddress {
                    addr: "[::1]:8080".parse().unwrap(),
                },
                "[plan] [::1]:8080 is this service's own address, which a run never reaches.",
            ),
            (
                LockError::Fixed {
                    host: "evil.test".into(),
                },
                "[plan] cannot add evil.test to a running plan's lock. The lock was fixed from \
                 the request before any page or email was read; allow the host when the run \
                 starts.",
            ),
        ];
        for (error, sentence) in cases {
            assert_eq!(error.to_string(), sentence, "{error:?}");
        }
    }
}
