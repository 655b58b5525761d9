//! The URL of a `navigate` step: an absolute http(s) URL with a host, and when it is not, a
//! hint that fits the mistake (no scheme, a relative path, another scheme).

use crate::plan::template::Template;
use crate::plan::wording::show;

/// An absolute http(s) URL with a host. URLs starting with a variable are checked at run time.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    let Ok(t) = Template::parse(url) else {
        return Ok(()); // reported by the template check
    };
    if t.starts_with_variable() {
        return Ok(());
    }
    let shown = show(url);
    if url.trim().is_empty() {
        return Err("is empty: write the absolute http(s) URL to visit".to_string());
    }
    // Variables elsewhere (`https://shop.example/{{path}}`) stand for some text.
    let probe = t.render_with(|_| "x");
    match url::Url::parse(&probe) {
        Ok(u) if (u.scheme() == "http" || u.scheme() == "https") && u.host_str().is_some() => {
            Ok(())
        }
        // `shop.example:8080/signup` parses with the "scheme" `shop.example`.
        Ok(u) if u.cannot_be_a_base() && looks_like_host(u.scheme()) => Err(format!(
            "`{shown}` has no scheme; write the absolute URL, e.g. `https://{}`",
            show(url.trim())
        )),
        Ok(u) => Err(format!(
            "`{shown}` is not an absolute http(s) URL (scheme `{}`); only http and https pages \
             can be visited",
            show(u.scheme())
        )),
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            let trimmed = url.trim();
            let first = trimmed.split(['/', '?', '#']).next().unwrap_or_default();
            if let Some(rest) = trimmed.strip_prefix("//") {
                Err(format!(
                    "`{shown}` has no scheme; write the absolute URL, e.g. `https://{}`",
                    show(rest)
                ))
            } else if looks_like_host(first) {
                Err(format!(
                    "`{shown}` has no scheme; write the absolute URL, e.g. `https://{}`",
                    show(trimmed)
                ))
            } else {
                Err(format!(
                    "`{shown}` is relative; write the absolute URL with its host, e.g. \
                     `https://shop.example/{}`",
                    show(trimmed.trim_start_matches(['.', '/']))
                ))
            }
        }
        Err(e) => Err(format!("`{shown}` is not a valid URL: {e}")),
    }
}

/// `shop.example` or `localhost`, maybe with a port: the start of a URL written without scheme.
fn looks_like_host(s: &str) -> bool {
    let host = s.rsplit_once(':').map_or(s, |(h, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            s
        }
    });
    host.eq_ignore_ascii_case("localhost")
        || (host.contains('.')
            && !host.starts_with('.')
            && !host.ends_with('.')
            && host
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_a_hint_that_fits() {
        let e = |u: &str| check_url(u).unwrap_err();
        assert!(
            e("shop.example/a").contains("has no scheme"),
            "{}",
            e("shop.example/a")
        );
        assert!(e("localhost:3000/a").contains("e.g. `https://localhost:3000/a`"));
        assert!(e("//cdn.example/x").contains("e.g. `https://cdn.example/x`"));
        assert!(e("/signup").contains("e.g. `https://shop.example/signup`"));
        assert!(e("").contains("is empty"));
        assert!(e("data:text/html,hi").contains("scheme `data`"));
        assert!(check_url("https://shop.example/{{ run_id }}/x").is_ok());
        assert!(check_url("{{base_url}}/x").is_ok());
        assert!(check_url("HTTPS://Shop.Example").is_ok());
    }
}
