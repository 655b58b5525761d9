//! A code is found by where it stands and how the mail marks it, never by how its letters
//! look. Every mail of the corpora that holds a code becomes a template: its subject, text and
//! HTML parts with the code's places marked. Random codes of every accepted shape go in those
//! places (same label, same position), and `find_otp` must return exactly the code put there.
//! Values that once failed (`QMYJE3`, `HELLO1`, …) are fixed cases, and a few draws go end to
//! end: a page that mails its code over the embedded SMTP receiver, real Chromium typing it,
//! and the app's own record of the code it accepted.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::response::Html;
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use mail_parser::{MessageParser, PartType};
use planlock::demo::{Mailer, SmtpMailer};
use planlock::inbox::extract::{Otp, OtpError, find_otp};
use planlock::inbox::smtp::SmtpInbox;
use planlock::plan::{Limits, Vars, parse_and_validate};
use planlock::runner::{self, RunSpec};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde_json::Value;

use crate::util::{self, need_browser};

/// The corpora and their tables (see `extract_corpus.rs`).
const CORPORA: &[&str] = &[
    "fixtures/emails",
    "fixtures/emails/apps",
    "fixtures/emails/steering",
];

/// Draws of each shape, shared out over the templates (each gets at least its share): 1,000,
/// or more with `PLANLOCK_CODE_DRAWS` for a longer soak.
fn draws_per_shape() -> u32 {
    std::env::var("PLANLOCK_CODE_DRAWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
        .max(1000)
}

// ---------------------------------------------------------------------------------------------
// Codes

/// The shapes of code the docs accept (`docs/steps.md`, "How the code is found").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `482913`: 4 to 10 digits.
    Digits,
    /// `G4X7K2`: 4 to 10 upper-case letters and digits, at least one of each.
    LettersAndDigits,
    /// `G-482913`, `302-918`, `4X7-K2P`: two groups of upper-case letters and digits joined by
    /// one dash, 4 to 10 characters without it, at least one digit.
    Dashed,
    /// `482 913`, `5521 9034`: two groups of 2 to 5 digits joined by one space, their lengths
    /// at most one apart.
    SpacedDigitGroups,
    /// `ZK4 P2Q`: two groups of 3 to 5 upper-case letters and digits of equal length, each with
    /// a digit, not both digits only, joined by one space.
    SpacedMixedGroups,
    /// `LTRP-KZLV`: two groups of 3 to 5 upper-case letters joined by a dash.
    DashedLetters,
    /// `6 0 4 1 9 2`: 4 to 10 upper-case letters and digits, one per group, single spaces.
    OneApart,
}

const SHAPES: &[Shape] = &[
    Shape::Digits,
    Shape::LettersAndDigits,
    Shape::Dashed,
    Shape::SpacedDigitGroups,
    Shape::SpacedMixedGroups,
    Shape::DashedLetters,
    Shape::OneApart,
];

/// A code as a mail shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Code {
    shown: String,
    shape: Shape,
}

impl Code {
    fn new(shown: &str, shape: Shape) -> Code {
        Code {
            shown: shown.to_string(),
            shape,
        }
    }

    fn compact(&self) -> String {
        self.shown
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect()
    }

    /// What `find_otp` returns as the code: a code shown one character apart comes back
    /// joined, every other as shown.
    fn expected(&self, one_apart: bool) -> String {
        if one_apart || self.shape == Shape::OneApart {
            self.compact()
        } else {
            self.shown.clone()
        }
    }
}

fn group(chars: &'static str, len: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    let pool: Vec<char> = chars.chars().collect();
    proptest::collection::vec(proptest::sample::select(pool), len)
        .prop_map(|v| v.into_iter().collect())
        .boxed()
}

const DIGITS: &str = "0123456789";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
}

fn has_letter(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_uppercase())
}

/// Random codes of one shape, uniform over its characters and lengths.
fn codes(shape: Shape) -> BoxedStrategy<Code> {
    let code = move |s: String| Code { shown: s, shape };
    match shape {
        Shape::Digits => group(DIGITS, 4..=10).prop_map(code).boxed(),
        Shape::LettersAndDigits => group(ALNUM, 4..=10)
            .prop_filter("a letter and a digit", |s| has_digit(s) && has_letter(s))
            .prop_map(code)
            .boxed(),
        Shape::Dashed => (1usize..=9)
            .prop_flat_map(|a| {
                (
                    group(ALNUM, a..=a),
                    group(ALNUM, 4usize.saturating_sub(a).max(1)..=10 - a),
                )
            })
            .prop_filter("a digit", |(a, b)| has_digit(a) || has_digit(b))
            .prop_map(move |(a, b)| code(format!("{a}-{b}")))
            .boxed(),
        Shape::SpacedDigitGroups => (2usize..=5)
            .prop_flat_map(|a| {
                let lo = a.saturating_sub(1).max(2);
                let hi = (a + 1).min(5);
                (group(DIGITS, a..=a), group(DIGITS, lo..=hi))
            })
            .prop_map(move |(a, b)| code(format!("{a} {b}")))
            .boxed(),
        Shape::SpacedMixedGroups => (3usize..=5)
            .prop_flat_map(|n| (group(ALNUM, n..=n), group(ALNUM, n..=n)))
            .prop_filter("each group has a digit, not both digits only", |(a, b)| {
                has_digit(a) && has_digit(b) && (has_letter(a) || has_letter(b))
            })
            .prop_map(move |(a, b)| code(format!("{a} {b}")))
            .boxed(),
        Shape::DashedLetters => (group(UPPER, 3..=5), group(UPPER, 3..=5))
            .prop_map(move |(a, b)| code(format!("{a}-{b}")))
            .boxed(),
        Shape::OneApart => group(ALNUM, 4..=10)
            .prop_map(move |s| {
                let spaced: Vec<String> = s.chars().map(String::from).collect();
                code(spaced.join(" "))
            })
            .boxed(),
    }
}

// ---------------------------------------------------------------------------------------------
// Templates

/// One readable part of a template mail, split at the places of its code.
#[derive(Debug, Clone)]
struct Part {
    html: bool,
    /// The text around the code's places: `pieces.len() == places.len() + 1`.
    pieces: Vec<String>,
    places: Vec<Place>,
}

/// How the code stood at one place.
#[derive(Debug, Clone)]
enum Place {
    /// As one string (`482913`, `G-582104`, `492&nbsp;817`).
    Whole,
    /// One character per box or per space: the markup between two characters (`</td><td>`).
    OneApart(String),
}

/// A mail of the corpora with its code taken out.
#[derive(Debug, Clone)]
struct Template {
    name: String,
    recipient: String,
    /// The code the mail holds, as its table writes it.
    own: String,
    subject: Part,
    parts: Vec<Part>,
    /// Every text of the mail, to keep draws that already occur in it out.
    text: String,
}

/// Every template of the corpora: each mail whose table row names a code.
fn templates() -> Vec<Template> {
    let mut out = Vec::new();
    for corpus in CORPORA {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(corpus);
        let table: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        for case in table["cases"].as_array().unwrap() {
            let Some(code) = case["otp"].as_str() else {
                continue;
            };
            let file = case["file"].as_str().unwrap();
            let recipient = case["recipient"].as_str().unwrap_or("test@inbox.test");
            let raw = std::fs::read(dir.join(file)).unwrap();
            let name = format!("{corpus}/{file}");
            out.push(
                Template::from_mail(&name, &raw, code, recipient)
                    .unwrap_or_else(|e| panic!("{name}: {e}")),
            );
        }
    }
    out
}

impl Template {
    fn from_mail(name: &str, raw: &[u8], code: &str, recipient: &str) -> Result<Template, String> {
        let msg = MessageParser::default()
            .parse(raw)
            .ok_or("mail-parser cannot read it")?;
        let subject = split(msg.subject().unwrap_or_default(), code, false);
        // the parts `find_otp` reads, in its order: text bodies, then HTML bodies, each once
        let mut seen = HashSet::new();
        let mut parts = Vec::new();
        for id in msg.text_body.iter().chain(msg.html_body.iter()) {
            if !seen.insert(*id) {
                continue;
            }
            match &msg.parts[*id as usize].body {
                PartType::Text(t) => parts.push(split(t, code, false)),
                PartType::Html(h) => parts.push(split(h, code, true)),
                _ => {}
            }
        }
        let places: usize = std::iter::once(&subject)
            .chain(&parts)
            .map(|p| p.places.len())
            .sum();
        if places == 0 {
            return Err(format!("the code {code} is nowhere in the mail"));
        }
        let text = std::iter::once(&subject)
            .chain(&parts)
            .flat_map(|p| p.pieces.iter().cloned())
            .collect::<Vec<_>>()
            .join("\n");
        Ok(Template {
            name: name.to_string(),
            recipient: recipient.to_string(),
            own: code.to_string(),
            subject,
            parts,
            text,
        })
    }

    /// Whether a draw cannot stand for "exactly this code": it already occurs in the mail
    /// (an order number, a year, the recipient's `+1234`), so finding it proves nothing.
    fn already_holds(&self, code: &Code) -> bool {
        let compact = code.compact();
        self.text.contains(&compact)
            || self.text.contains(&code.shown)
            || self.recipient.to_ascii_uppercase().contains(&compact)
    }

    /// The mail to `to` with `code` in each of the code's places, as MIME: the subject as an
    /// encoded word, each part in UTF-8 and base64, in `find_otp`'s reading order.
    fn mail_to(&self, code: &Code, to: &str) -> Vec<u8> {
        let subject = fill(&self.subject, code);
        let mut out = format!(
            "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: =?utf-8?B?{}?=\r\n\
             MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"t3mpl4te\"\r\n\r\n",
            B64.encode(subject)
        );
        for part in &self.parts {
            let kind = if part.html { "html" } else { "plain" };
            let body = B64.encode(fill(part, code));
            out.push_str(&format!(
                "--t3mpl4te\r\nContent-Type: text/{kind}; charset=utf-8\r\n\
                 Content-Transfer-Encoding: base64\r\n\r\n"
            ));
            for line in body.as_bytes().chunks(76) {
                out.push_str(std::str::from_utf8(line).unwrap());
                out.push_str("\r\n");
            }
        }
        out.push_str("--t3mpl4te--\r\n");
        out.into_bytes()
    }

    /// Whether every place shows the code one character apart (boxes, spaced digits).
    fn one_apart(&self) -> bool {
        std::iter::once(&self.subject)
            .chain(&self.parts)
            .flat_map(|p| &p.places)
            .all(|p| matches!(p, Place::OneApart(_)))
    }

    /// What `find_otp` must answer for `code` in this template.
    fn expected(&self, code: &Code) -> String {
        code.expected(self.one_apart())
    }
}

fn fill(part: &Part, code: &Code) -> String {
    let mut out = part.pieces[0].clone();
    for (place, piece) in part.places.iter().zip(&part.pieces[1..]) {
        match place {
            Place::Whole => out.push_str(&code.shown),
            Place::OneApart(between) => {
                let chars: Vec<String> = code.compact().chars().map(String::from).collect();
                out.push_str(&chars.join(between));
            }
        }
        out.push_str(piece);
    }
    out
}

/// Cuts `text` at every place `code` stands: as shown (`G-582104`, `b'2UkFi3Ep'`), or its
/// characters with only spaces, `&nbsp;`, a dash or markup between them (`492&nbsp;817`,
/// `<td>9</td><td>0</td>…`). A place never starts or ends inside a longer word.
fn split(text: &str, code: &str, html: bool) -> Part {
    let compact: Vec<char> = code.chars().filter(char::is_ascii_alphanumeric).collect();
    let cs: Vec<char> = text.chars().collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric());
    let mut pieces = Vec::new();
    let mut places = Vec::new();
    let mut piece_start = 0;
    let mut i = 0;
    while i < cs.len() {
        if i > 0 && word(cs.get(i - 1)) {
            i += 1;
            continue;
        }
        let shown: Vec<char> = code.chars().collect();
        let found = if cs[i..].starts_with(&shown) && !word(cs.get(i + shown.len())) {
            Some((i + shown.len(), Place::Whole))
        } else {
            match_apart(&cs, i, &compact, html).filter(|(end, _)| !word(cs.get(*end)))
        };
        match found {
            Some((end, place)) => {
                pieces.push(cs[piece_start..i].iter().collect());
                places.push(place);
                piece_start = end;
                i = end;
            }
            None => i += 1,
        }
    }
    pieces.push(cs[piece_start..].iter().collect());
    Part {
        html,
        pieces,
        places,
    }
}

/// The code's characters from `at` with only separators between them; one character apart
/// when every gap holds something and they are all alike but for markup attributes.
fn match_apart(cs: &[char], at: usize, compact: &[char], html: bool) -> Option<(usize, Place)> {
    let mut k = at;
    let mut gaps: Vec<String> = Vec::new();
    for (n, want) in compact.iter().enumerate() {
        if n > 0 {
            let start = k;
            k = skip_gap(cs, k, html);
            gaps.push(cs[start..k].iter().collect());
        }
        if cs.get(k) != Some(want) {
            return None;
        }
        k += 1;
    }
    if !gaps.is_empty() && gaps.iter().all(|g| !g.is_empty()) {
        return Some((k, Place::OneApart(gaps[0].clone())));
    }
    Some((k, Place::Whole))
}

/// Spaces, `&nbsp;`, one dash, and (in HTML) tags.
fn skip_gap(cs: &[char], mut k: usize, html: bool) -> usize {
    loop {
        match cs.get(k) {
            Some(c) if c.is_whitespace() || *c == '\u{a0}' || *c == '-' => k += 1,
            Some('<') if html => match cs[k..].iter().position(|&c| c == '>') {
                Some(end) => k += end + 1,
                None => return k,
            },
            Some('&') if html && cs[k..].starts_with(&['&', 'n', 'b', 's', 'p', ';']) => k += 6,
            _ => return k,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Checks

/// What `find_otp` answered, in a sentence for the failure list.
fn answer(r: &Result<Otp, OtpError>) -> String {
    match r {
        Ok(o) => format!(
            "{:?} ({:?}: {})",
            o.code,
            o.source,
            planlock::inbox::extract::worded(&o.reasons).join("; ")
        ),
        Err(e) => format!("{e}"),
    }
}

/// `find_otp` on `code` in `template`: exactly that code, or why not.
fn check(template: &Template, code: &Code) -> Result<(), String> {
    let raw = template.mail_to(code, &template.recipient);
    let got = find_otp(&raw, &template.recipient);
    let want = template.expected(code);
    match &got {
        Ok(o) if o.code == want && o.compact == code.compact() => Ok(()),
        _ => Err(format!(
            "{}: {:?} ({:?}) put in, {} found",
            template.name,
            want,
            code.shape,
            answer(&got)
        )),
    }
}

/// The corpus mails themselves come out of their templates unchanged: the template reads
/// every place of the code, and filled with the mail's own code it still gives that code.
#[test]
fn every_corpus_code_comes_back_from_its_template() {
    let templates = templates();
    assert!(templates.len() >= 40, "only {} templates", templates.len());
    let mut wrong = Vec::new();
    for t in &templates {
        let own = own_code(t);
        if let Err(e) = check(t, &own) {
            wrong.push(e);
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The code the template was cut from. Its shape matters only for a code shown one character
/// apart, and for this code the template's own layout says so.
fn own_code(t: &Template) -> Code {
    Code::new(&t.own, Shape::LettersAndDigits)
}

/// For each shape, at least [`draws_per_shape`] random codes, shared out over every template:
/// no draw may fail. Failures are shrunk to the simplest code that still fails, and all are
/// listed at once.
#[test]
fn random_codes_of_every_shape_are_found_where_the_code_stood() {
    let templates = templates();
    let per_template = draws_per_shape().div_ceil(templates.len() as u32);
    let mut failures: Vec<String> = Vec::new();
    let mut draws = 0u32;
    for &shape in SHAPES {
        for t in &templates {
            let mut runner = TestRunner::new(Config {
                cases: per_template,
                failure_persistence: None,
                ..Config::default()
            });
            let result = runner.run(&codes(shape), |code| {
                prop_assume!(!t.already_holds(&code));
                check(t, &code).map_err(TestCaseError::fail)
            });
            draws += per_template;
            match result {
                Ok(()) => {}
                Err(TestError::Fail(why, code)) => {
                    failures.push(format!("{why} [simplest failing draw: {:?}]", code.shown))
                }
                Err(TestError::Abort(why)) => failures.push(format!("{}: {why}", t.name)),
            }
        }
    }
    println!(
        "{draws} draws over {} templates, {per_template} per template and shape",
        templates.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} template and shape pairs failed:\n{}",
        failures.len(),
        SHAPES.len() * templates.len(),
        failures.join("\n")
    );
}

/// Codes that were not found before codes were judged by where they stand (they spell, or
/// start with, a word), and others that look like something else: in every template.
#[test]
fn codes_that_look_like_words_or_numbers_are_found_where_the_code_stood() {
    let fixed = [
        ("QMYJE3", Shape::LettersAndDigits),
        ("QMYJ33", Shape::LettersAndDigits),
        ("HELLO1", Shape::LettersAndDigits),
        ("BENCH5", Shape::LettersAndDigits),
        ("A1B2C3", Shape::LettersAndDigits),
        ("ZXCVB7", Shape::LettersAndDigits),
        ("K3WPDQ", Shape::LettersAndDigits),
        ("7KWPDQ", Shape::LettersAndDigits),
        ("THANKS10", Shape::LettersAndDigits),
        ("ORDER7", Shape::LettersAndDigits),
        ("SHA256", Shape::LettersAndDigits),
        ("ISO9001", Shape::LettersAndDigits),
        ("512MB", Shape::LettersAndDigits),
        ("10TH", Shape::LettersAndDigits),
        ("COVID-19", Shape::Dashed),
        ("555-0100", Shape::Dashed),
        ("2024-05", Shape::Dashed),
        ("ONE-TIME", Shape::DashedLetters),
        ("FREE-SHIP", Shape::DashedLetters),
        ("ZIPQ-KLMN", Shape::DashedLetters),
        ("PIN-CODE", Shape::DashedLetters),
        ("OTP-KZLV", Shape::DashedLetters),
        ("REF-KZLV", Shape::DashedLetters),
        ("TEL-QXWZ", Shape::DashedLetters),
        ("CALL-XQZ", Shape::DashedLetters),
        ("BOX-QQQ", Shape::DashedLetters),
        ("ORDER-XYZ", Shape::DashedLetters),
        ("ID-4821", Shape::Dashed),
        ("2FA 7K2", Shape::SpacedMixedGroups),
        ("MFA-2024", Shape::Dashed),
        ("2024", Shape::Digits),
        ("1987", Shape::Digits),
    ];
    let mut failures = Vec::new();
    for t in templates() {
        for (shown, shape) in fixed {
            let code = Code::new(shown, shape);
            if t.already_holds(&code) {
                continue;
            }
            if let Err(e) = check(&t, &code) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// End to end

/// The app under test: `/start?to=ADDR` mails ADDR its template filled with this draw's code,
/// over SMTP, and shows a code form; `POST /verify` records every code typed and accepts only
/// the one it sent (spaces and dashes aside, as apps compare codes).
#[derive(Clone)]
struct CodeApp {
    mailer: Arc<dyn Mailer>,
    template: Arc<Template>,
    code: Code,
    typed: Arc<Mutex<Vec<String>>>,
}

#[derive(serde::Deserialize)]
struct To {
    to: String,
}

#[derive(serde::Deserialize)]
struct Typed {
    code: String,
}

fn plain(code: &str) -> String {
    code.chars().filter(char::is_ascii_alphanumeric).collect()
}

impl CodeApp {
    async fn start(mailer: Arc<dyn Mailer>, template: Template, code: Code) -> (CodeApp, String) {
        let app = CodeApp {
            mailer,
            template: Arc::new(template),
            code,
            typed: Arc::default(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let router = Router::new()
            .route("/start", get(send_code))
            .route("/verify", post(verify))
            .with_state(app.clone());
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        (app, base)
    }

    /// The codes the app was sent, as it recorded them.
    fn typed(&self) -> Vec<String> {
        self.typed.lock().unwrap().clone()
    }
}

async fn send_code(State(app): State<CodeApp>, Query(q): Query<To>) -> Html<String> {
    // the plan writes the address into the query as it is, where a `+` reads as a space
    let to = q.to.replace(' ', "+");
    let raw = app.template.mail_to(&app.code, &to);
    let sent = app.mailer.send("noreply@shop.test", &to, raw).await;
    Html(match sent {
        Ok(()) => "<h1>Check your inbox</h1><form method=\"post\" action=\"/verify\">\
                   <label for=\"code\">Code</label> <input id=\"code\" name=\"code\" autocomplete=\"one-time-code\">\
                   <button>Verify</button></form>"
            .to_string(),
        Err(e) => format!("<h1>Mail failed: {e}</h1>"),
    })
}

async fn verify(State(app): State<CodeApp>, Form(t): Form<Typed>) -> Html<&'static str> {
    app.typed.lock().unwrap().push(t.code.clone());
    Html(if plain(&t.code) == app.code.compact() {
        "<h1>Code accepted</h1>"
    } else {
        "<h1>That code is not right</h1>"
    })
}

/// One random code of `shape` that `template` does not already hold.
fn draw(template: &Template, shape: Shape) -> Code {
    let mut runner = TestRunner::default();
    loop {
        let code = codes(shape).new_tree(&mut runner).unwrap().current();
        if !template.already_holds(&code) {
            return code;
        }
    }
}

/// A few draws end to end: the app mails its code through planlock's embedded SMTP receiver,
/// real Chromium types what the run read, and the app's own record says which code arrived.
#[test]
fn random_codes_are_typed_and_accepted_end_to_end_over_smtp() {
    need_browser!();
    let picks = [
        (
            "fixtures/emails/access_code_spells_almost_a_word.eml",
            Shape::LettersAndDigits,
        ),
        (
            "fixtures/emails/chatspace_confirmation_code.eml",
            Shape::DashedLetters,
        ),
        (
            "fixtures/emails/mixed_code_space_grouped.eml",
            Shape::SpacedMixedGroups,
        ),
        (
            "fixtures/emails/spaced_single_digits_line.eml",
            Shape::Dashed,
        ),
        (
            "fixtures/emails/steering/title_code_in_subject.eml",
            Shape::Digits,
        ),
    ];
    let all = templates();
    util::rt().block_on(async {
        let smtp = SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), "inbox.test")
            .await
            .unwrap();
        for (name, shape) in picks {
            let template = all
                .iter()
                .find(|t| t.name == name)
                .unwrap_or_else(|| panic!("no template {name}"))
                .clone();
            let code = draw(&template, shape);
            let mailer = Arc::new(SmtpMailer::new(smtp.local_addr()));
            let (app, base) = CodeApp::start(mailer, template, code.clone()).await;
            let json = format!(
                r##"{{"reasoning":"","steps":[
                {{"type":"navigate","url":"{base}/start?to={{{{inbox_address}}}}"}},
                {{"type":"wait_for_text","text":"Check your inbox"}},
                {{"type":"use_otp_from_inbox","selector":"#code","timeout_seconds":20}},
                {{"type":"click","describe":"verify the code","text":"Verify"}},
                {{"type":"wait_for_text","text":"Code accepted","timeout_seconds":10}},
                {{"type":"done","summary":"verified"}}]}}"##
            );
            let plan = parse_and_validate(&json, &Limits::default(), &Vars::default())
                .unwrap_or_else(|e| panic!("test plan is invalid: {e}\n{json}"));
            let spec = RunSpec::new(plan)
                .run_id(runner::new_run_id())
                .inbox(None, smtp.clone());
            let (result, _) = util::run_locked(spec).await;
            let typed = app.typed();
            assert!(
                result.succeeded() && typed.len() == 1 && plain(&typed[0]) == code.compact(),
                "{name}: the app sent {:?} and recorded {typed:?}; the run: {}",
                code.shown,
                serde_json::to_string_pretty(&result).unwrap()
            );
        }
    });
}
