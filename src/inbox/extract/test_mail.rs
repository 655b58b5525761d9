//! Small test messages shared by the extraction unit tests, and shorthands that return only
//! the code found or the URL of the link chosen.

use url::Url;

use super::{LinkError, Otp, find_link, find_otp};

pub(super) fn text_mail(subject: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Acme <no-reply@acme.example>\r\nTo: test+1234@inbox.test\r\nSubject: {subject}\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

pub(super) fn html_mail(subject: &str, html: &str) -> Vec<u8> {
    format!(
        "From: Acme <no-reply@acme.example>\r\nTo: test+1234@inbox.test\r\nSubject: {subject}\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    )
    .into_bytes()
}

pub(super) fn otp(raw: &[u8]) -> Option<String> {
    find_otp(raw, "test+1234@inbox.test").ok().map(|o| o.code)
}

/// The code of a plain-text mail, as [`otp`] finds it.
pub(super) fn text_otp(subject: &str, body: &str) -> Option<String> {
    otp(&text_mail(subject, body))
}

/// The code found in `raw`, with where and why, to the address the test mails are sent to;
/// a mail with no code fails the test.
pub(super) fn found_otp(raw: &[u8]) -> Otp {
    find_otp(raw, "test+1234@inbox.test").expect("the mail has a code")
}

fn only(host: &'static str) -> impl Fn(&Url) -> bool {
    move |u: &Url| {
        u.host_str()
            .is_some_and(|h| h == host || h.ends_with(&format!(".{host}")))
    }
}

pub(super) fn link(raw: &[u8], host: &'static str) -> Result<String, LinkError> {
    find_link(raw, None, &only(host)).map(|l| l.url.to_string())
}

pub(super) fn link_described(
    raw: &[u8],
    describe: &str,
    host: &'static str,
) -> Result<String, LinkError> {
    find_link(raw, Some(describe), &only(host)).map(|l| l.url.to_string())
}
