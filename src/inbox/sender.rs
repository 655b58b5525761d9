//! Who a message is from, as far as a `from` filter may trust it: the address in the `From`
//! header (never the display name, which the sender writes freely), its domain, and what the
//! receiving server's `Authentication-Results` said about that domain.

use mail_parser::{HeaderValue, Message as Parsed};

use crate::plan::SenderFilter;

/// The sender of one message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sender {
    /// Every address in the `From` header(s), lower-cased. A genuine mail has exactly one.
    pub addresses: Vec<String>,
    /// What the receiving server said against the `From` domain, when it said so.
    pub failed_authentication: Option<AuthFailure>,
}

/// What the receiving server's `Authentication-Results` said against a sender's domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthFailure {
    /// DMARC failed for the domain.
    Dmarc { domain: String },
    /// Every DKIM signature of the domain failed.
    Dkim { domain: String },
}

/// Why a message is not from what a filter names (the runner words it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SenderMismatch {
    /// The step's `from`, its variables filled in, is no sender filter (the plan's words for
    /// why).
    Filter(String),
    /// Its `From` holds no address.
    NoAddress,
    /// Its `From` names this many senders, and a mail has one.
    Several(usize),
    /// Its one sender address is not the filter's.
    NotTheSender,
    /// The address is the filter's, but the receiving server said it is not authentic.
    Unauthentic {
        failure: AuthFailure,
        filter: SenderFilter,
    },
}

/// The domain of an address (after its last `@`), lower-cased.
fn domain_of(address: &str) -> &str {
    address.rsplit_once('@').map_or("", |(_, d)| d)
}

/// `domain` is `parent` or one of its subdomains, label by label (`mail.shop.test` is under
/// `shop.test`; `fakeshop.test` and `shop.test.evil.test` are not).
fn is_under(domain: &str, parent: &str) -> bool {
    domain == parent
        || domain
            .strip_suffix(parent)
            .is_some_and(|head| head.ends_with('.'))
}

impl Sender {
    /// Reads the sender of a parsed message (`raw` is the bytes it was parsed from).
    pub(crate) fn of(message: &Parsed<'_>, raw: &[u8]) -> Sender {
        let mut addresses = Vec::new();
        let mut results = Vec::new();
        for header in message.headers() {
            let name = header.name();
            if name.eq_ignore_ascii_case("from") {
                match header.value() {
                    HeaderValue::Address(list) => addresses.extend(
                        list.iter()
                            .filter_map(|a| a.address())
                            .map(|a| a.trim().to_lowercase())
                            .filter(|a| !a.is_empty()),
                    ),
                    // An unparsable `From` still counts as one, with no address.
                    _ => addresses.push(String::new()),
                }
            } else if name.eq_ignore_ascii_case("authentication-results") {
                let (start, end) = (header.offset_start as usize, header.offset_end as usize);
                if let Some(value) = raw.get(start..end) {
                    results.push(String::from_utf8_lossy(value).into_owned());
                }
            }
        }
        let failed_authentication = match addresses.as_slice() {
            [one] if !domain_of(one).is_empty() => failed_verdict(&results, domain_of(one)),
            _ => None,
        };
        Sender {
            addresses,
            failed_authentication,
        }
    }

    /// Whether the message is from what `filter` names, or why not.
    pub fn check(&self, filter: &SenderFilter) -> Result<(), SenderMismatch> {
        let address = match self.addresses.as_slice() {
            [one] if one.contains('@') => one,
            [] | [_] => return Err(SenderMismatch::NoAddress),
            many => return Err(SenderMismatch::Several(many.len())),
        };
        let matched = match filter {
            SenderFilter::Address(a) => address == a,
            SenderFilter::Domain(d) => is_under(domain_of(address), d),
        };
        if !matched {
            return Err(SenderMismatch::NotTheSender);
        }
        match &self.failed_authentication {
            Some(failure) => Err(SenderMismatch::Unauthentic {
                failure: failure.clone(),
                filter: filter.clone(),
            }),
            None => Ok(()),
        }
    }
}

/// What `Authentication-Results` headers say against `domain`: DMARC failed for it, or every
/// DKIM signature of it failed. Only failures count: a header the sender forged can make its
/// own mail not match, never make a mail match.
fn failed_verdict(headers: &[String], domain: &str) -> Option<AuthFailure> {
    let mut dkim_failed = false;
    let mut dkim_passed = false;
    for header in headers {
        for result in results_of(header) {
            let about = |keys: &[&str]| {
                keys.iter()
                    .find_map(|k| result.property(k))
                    .map(|d| d.trim_start_matches('@'))
                    .map(|d| domain_of_identity(d).to_string())
            };
            match result.method.as_str() {
                "dmarc"
                    if result.result == "fail"
                        && about(&["header.from"]).is_none_or(|d| d == domain) =>
                {
                    return Some(AuthFailure::Dmarc {
                        domain: domain.to_string(),
                    });
                }
                "dkim" if about(&["header.d", "header.i"]).is_none_or(|d| is_under(domain, &d)) => {
                    match result.result.as_str() {
                        "pass" => dkim_passed = true,
                        "fail" => dkim_failed = true,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    (dkim_failed && !dkim_passed).then(|| AuthFailure::Dkim {
        domain: domain.to_string(),
    })
}

/// `shop.example` of `@shop.example` or `user@shop.example`, lower-cased.
fn domain_of_identity(s: &str) -> &str {
    s.rsplit_once('@').map_or(s, |(_, d)| d)
}

/// One `method=result property=value …` of an `Authentication-Results` header.
struct AuthResult {
    method: String,
    result: String,
    properties: Vec<(String, String)>,
}

impl AuthResult {
    fn property(&self, key: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The results of one header value: comments dropped, the first part (the server's id)
/// skipped, each `;`-separated part read as `method=result` and its properties.
fn results_of(value: &str) -> Vec<AuthResult> {
    let text = without_comments(value).to_lowercase();
    text.split(';')
        .skip(1)
        .filter_map(|part| {
            let mut words = part.split_whitespace();
            let (method, result) = words.next()?.split_once('=')?;
            // `dkim/1=pass`: a method may carry a version.
            let method = method.split('/').next().unwrap_or(method).to_string();
            let properties = words
                .filter_map(|w| w.split_once('='))
                .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
                .collect();
            Some(AuthResult {
                method,
                result: result.to_string(),
                properties,
            })
        })
        .collect()
}

/// `value` without its parenthesised comments (which may nest).
fn without_comments(value: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MessageParser;

    fn sender(headers: &str) -> Sender {
        let raw = format!("{headers}\r\nSubject: x\r\n\r\nbody\r\n").into_bytes();
        let parsed = MessageParser::default().parse(&raw).expect("parses");
        Sender::of(&parsed, &raw)
    }

    fn filter(f: &str) -> SenderFilter {
        SenderFilter::parse(f).expect("a filter")
    }

    #[test]
    fn a_domain_matches_itself_and_its_subdomains_only() {
        let f = filter("shop.test");
        const SPOOFED: Result<(), SenderMismatch> = Err(SenderMismatch::NotTheSender);
        for (header, verdict) in [
            ("From: noreply@shop.test", Ok(())),
            ("From: Shop <no-reply@mail.shop.test>", Ok(())),
            ("From: NoReply@SHOP.Test", Ok(())),
            ("From: noreply@fakeshop.test", SPOOFED),
            ("From: noreply@shop.test.evil.test", SPOOFED),
            ("From: shop.test@evil.test", SPOOFED),
            ("From: \"noreply@shop.test\" <mallory@evil.test>", SPOOFED),
        ] {
            assert_eq!(sender(header).check(&f), verdict, "{header}");
        }
    }

    #[test]
    fn an_address_matches_that_address_only() {
        let f = filter("No-Reply@Shop.test");
        assert_eq!(f, SenderFilter::Address("no-reply@shop.test".into()));
        assert!(sender("From: Shop <no-reply@shop.test>").check(&f).is_ok());
        assert!(sender("From: other@shop.test").check(&f).is_err());
        assert!(sender("From: no-reply@mail.shop.test").check(&f).is_err());
        assert_eq!(
            filter("@shop.test"),
            SenderFilter::Domain("shop.test".into())
        );
        assert_eq!(
            filter("shop.test."),
            SenderFilter::Domain("shop.test".into())
        );
    }

    #[test]
    fn several_or_no_from_addresses_never_match() {
        let f = filter("shop.test");
        for (header, refused) in [
            (
                "From: mallory@evil.test, noreply@shop.test",
                SenderMismatch::Several(2),
            ),
            (
                "From: noreply@shop.test\r\nFrom: mallory@evil.test",
                SenderMismatch::Several(2),
            ),
            ("From: \"noreply@shop.test\" <>", SenderMismatch::NoAddress),
            ("To: me@inbox.test", SenderMismatch::NoAddress),
        ] {
            assert_eq!(sender(header).check(&f), Err(refused), "{header}");
        }
    }

    #[test]
    fn a_failed_dmarc_or_dkim_verdict_for_the_from_domain_never_matches() {
        let f = filter("shop.test");
        let s = sender(
            "Authentication-Results: mx.inbox.test; spf=pass smtp.mailfrom=evil.test;\r\n \
             dkim=none; dmarc=fail (p=reject dis=none) header.from=shop.test\r\n\
             From: noreply@shop.test",
        );
        assert_eq!(
            s.check(&f),
            Err(SenderMismatch::Unauthentic {
                failure: AuthFailure::Dmarc {
                    domain: "shop.test".into()
                },
                filter: f.clone(),
            })
        );
        let s = sender(
            "Authentication-Results: mx.inbox.test;\r\n dkim=fail (bad signature) \
             header.d=shop.test header.s=s1\r\nFrom: noreply@mail.shop.test",
        );
        assert_eq!(
            s.failed_authentication,
            Some(AuthFailure::Dkim {
                domain: "mail.shop.test".into()
            })
        );
        assert!(s.check(&f).is_err());
    }

    #[test]
    fn passing_or_unrelated_verdicts_change_nothing() {
        let f = filter("shop.test");
        for ok in [
            "Authentication-Results: mx.inbox.test; dkim=pass header.d=shop.test; \
             dmarc=pass header.from=shop.test\r\nFrom: noreply@shop.test",
            // A broken second signature beside a good one of the same domain.
            "Authentication-Results: mx.inbox.test; dkim=fail header.d=shop.test; \
             dkim=pass header.d=shop.test\r\nFrom: noreply@shop.test",
            // Another domain's failure (a forwarder's signature) is not the sender's.
            "Authentication-Results: mx.inbox.test; dkim=fail header.d=list.test; \
             dmarc=fail header.from=other.test\r\nFrom: noreply@shop.test",
            "Authentication-Results: mx.inbox.test; none\r\nFrom: noreply@shop.test",
        ] {
            assert_eq!(sender(ok).check(&f), Ok(()), "{ok}");
        }
    }
}
