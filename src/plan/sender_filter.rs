//! What a step's `from` may name. A `From` header carries a display name and an address;
//! the display name is whatever the sender chose to write, so a filter names the address or
//! its domain, nothing else.

use std::fmt;

/// What a step's `from` names: a whole address, or a domain (and its subdomains).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SenderFilter {
    Address(String),
    Domain(String),
}

impl SenderFilter {
    /// Reads a step's `from`: `no-reply@shop.example` is an address, `shop.example` (or
    /// `@shop.example`) a domain. Anything else is refused with the reason, since the only other
    /// thing a `From` header carries is a display name, which whoever sends the mail chooses.
    pub fn parse(from: &str) -> Result<SenderFilter, String> {
        let f = from.trim().trim_end_matches('.').to_lowercase();
        let (local, domain) = match f.rsplit_once('@') {
            Some((local, domain)) => (Some(local), domain),
            None => (None, f.as_str()),
        };
        if !is_domain(domain) || local.is_some_and(|l| l.contains(char::is_whitespace)) {
            return Err(format!(
                "{from:?} is neither an email address nor a domain: give the sender's domain \
                 (\"shop.example\", which also matches its subdomains) or its address \
                 (\"no-reply@shop.example\"); a display name is never matched, because whoever \
                 sends a mail writes it"
            ));
        }
        Ok(match local {
            Some(local) if !local.is_empty() => SenderFilter::Address(f.clone()),
            _ => SenderFilter::Domain(domain.to_string()),
        })
    }
}

impl fmt::Display for SenderFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SenderFilter::Address(a) => f.write_str(a),
            SenderFilter::Domain(d) => f.write_str(d),
        }
    }
}

/// Letters, digits and hyphens in two or more dot-separated labels (`shop.example`,
/// `mail.shop.example`, an IDN's `xn--` form).
fn is_domain(s: &str) -> bool {
    let labels: Vec<&str> = s.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_a_domain_or_nothing() {
        assert_eq!(
            SenderFilter::parse("No-Reply@Shop.test"),
            Ok(SenderFilter::Address("no-reply@shop.test".into()))
        );
        for domain in ["shop.test", "@shop.test", "shop.test.", " Mail.Shop.TEST "] {
            assert!(
                matches!(SenderFilter::parse(domain), Ok(SenderFilter::Domain(d)) if d.ends_with("shop.test")),
                "{domain}"
            );
        }
        for bad in [
            "Demo Shop",
            "shop",
            "",
            "a@",
            "shop..test",
            "-shop.test",
            "x y@shop.test",
        ] {
            let e = SenderFilter::parse(bad).unwrap_err();
            assert!(
                e.contains("neither an email address nor a domain"),
                "{bad}: {e}"
            );
        }
    }
}
