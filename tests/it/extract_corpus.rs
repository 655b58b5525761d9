//! Runs the mail corpora through `find_otp` and `find_link` and compares with their
//! `expected.json`: the real-world-shaped mails in `fixtures/emails/`, the mails stock web apps
//! really sent in `fixtures/emails/apps/`, and mails written to steer a run in
//! `fixtures/emails/steering/`. Every mismatch is reported at once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use planlock::inbox::extract::{
    Link, LinkError, Otp, OtpError, OtpSource, find_link, find_otp, mask_code,
};
use serde_json::Value;
use url::Url;

/// The shaped corpus.
const SHAPED: &str = "fixtures/emails";
/// Mails captured from stock web apps, unedited.
const APPS: &str = "fixtures/emails/apps";
/// Mails written to steer a run: destructive links placed first, quoted notes from other
/// users, an attacker's code beside the real one.
const STEERING: &str = "fixtures/emails/steering";

fn corpus_dir(corpus: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(corpus)
}

fn cases(corpus: &str) -> Vec<Value> {
    let path = corpus_dir(corpus).join("expected.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} is not readable: {e}", path.display()));
    let table: Value = serde_json::from_str(&text).expect("expected.json is valid JSON");
    table["cases"]
        .as_array()
        .expect("expected.json has a `cases` array")
        .clone()
}

/// The lock used by a case: a listed host or any subdomain of it.
fn lock(hosts: &[String]) -> impl Fn(&Url) -> bool + '_ {
    move |u: &Url| {
        u.host_str().is_some_and(|h| {
            hosts
                .iter()
                .any(|a| h == a || h.ends_with(&format!(".{a}")))
        })
    }
}

fn opt_str(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn source_name(s: OtpSource) -> &'static str {
    match s {
        OtpSource::Subject => "subject",
        OtpSource::Text => "text",
        OtpSource::Html => "html",
    }
}

#[test]
fn corpus_matches_expectations() {
    check_corpus(SHAPED);
}

/// Each mail a stock app sent: the link or code a person would pick.
#[test]
fn apps_corpus_matches_expectations() {
    check_corpus(APPS);
}

/// Mails an attacker can send or shape, and genuine mails with a link that undoes: the link
/// and code a person would pick, or a refusal.
#[test]
fn steering_corpus_matches_expectations() {
    check_corpus(STEERING);
}

fn check_corpus(corpus: &str) {
    let cases = cases(corpus);
    let mut failures: Vec<String> = Vec::new();
    let mut passed = 0;
    for case in &cases {
        let file = case["file"].as_str().expect("each case names its file");
        let raw = match std::fs::read(corpus_dir(corpus).join(file)) {
            Ok(raw) => raw,
            Err(e) => {
                failures.push(format!("{file}: cannot read: {e}"));
                continue;
            }
        };
        let problems = check_case(case, &raw);
        if problems.is_empty() {
            passed += 1;
        } else {
            let note = case["note"].as_str().unwrap_or_default();
            failures.push(format!("{file} ({note}):\n    {}", problems.join("\n    ")));
        }
    }
    println!(
        "{corpus}: {passed} of {} mails picked as expected",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases in {corpus} failed:\n\n{}\n",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    assert_eq!(passed, cases.len());
}

/// What `find_otp` returned, as the table writes it.
fn otp_outcome(r: &Result<Otp, OtpError>) -> String {
    match r {
        Ok(o) => format!("Ok({})", o.code),
        Err(OtpError::NoCode) => "NoCode".into(),
        Err(OtpError::Ambiguous { first, second }) => format!("Ambiguous({first}, {second})"),
    }
}

/// What `find_link` returned, as the table writes it.
fn link_outcome(r: &Result<Link, LinkError>) -> String {
    match r {
        Ok(l) => format!("Ok({})", l.url),
        Err(LinkError::NoCandidates) => "NoCandidates".to_string(),
        Err(LinkError::OnlyOutside { candidates }) => format!(
            "OnlyOutside({})",
            candidates
                .iter()
                .map(Url::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(LinkError::Refused { url, why }) => format!("Refused({url}: {why})"),
        Err(LinkError::Ambiguous { first, second }) => format!("Ambiguous({first}, {second})"),
    }
}

/// Every way one case's outcome differs from its row in the table.
fn check_case(case: &Value, raw: &[u8]) -> Vec<String> {
    let recipient = case["recipient"].as_str().unwrap_or("test@inbox.test");
    let hosts: Vec<String> = case["allowed_hosts"]
        .as_array()
        .map(|a| a.iter().filter_map(opt_str).collect())
        .unwrap_or_default();
    let mut problems: Vec<String> = Vec::new();

    // --- OTP
    let want_otp = opt_str(&case["otp"]);
    let got = find_otp(raw, recipient);
    let otp_ok = match (&want_otp, case["otp_ambiguous"].as_bool(), &got) {
        (_, Some(true), Err(OtpError::Ambiguous { .. })) => true,
        (_, Some(true), _) => false,
        (Some(want), _, Ok(o)) => o.code == *want,
        (None, _, Err(OtpError::NoCode)) => true,
        _ => false,
    };
    if !otp_ok {
        let expected = match (&want_otp, case["otp_ambiguous"].as_bool()) {
            (_, Some(true)) => "Ambiguous".to_string(),
            (Some(c), _) => format!("Ok({c})"),
            (None, _) => "NoCode".to_string(),
        };
        problems.push(format!(
            "otp: expected {expected}, got {}",
            otp_outcome(&got)
        ));
    }
    if let (Ok(o), Some(want_source)) = (&got, case["otp_source"].as_str())
        && source_name(o.source) != want_source
    {
        problems.push(format!(
            "otp source: expected {want_source}, got {}",
            source_name(o.source)
        ));
    }
    if let Ok(o) = &got {
        let stripped: String = o
            .code
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        if o.compact != stripped {
            problems.push(format!(
                "otp compact {:?} is not {:?} without separators",
                o.compact, o.code
            ));
        }
        if mask_code(&o.code).contains(&o.compact) {
            problems.push(format!("mask_code leaks the code: {}", mask_code(&o.code)));
        }
        if o.reasons.is_empty() {
            problems.push("otp: the choice records no reason".into());
        }
    }

    // --- link
    let want_link = opt_str(&case["link"]);
    let want_outside: Option<Vec<String>> = case["outside"]
        .as_array()
        .map(|a| a.iter().filter_map(opt_str).collect());
    let want_refused = opt_str(&case["refused"]);
    let want_ambiguous: Option<Vec<String>> = case["ambiguous"]
        .as_array()
        .map(|a| a.iter().filter_map(opt_str).collect());
    let describe = case["describe"].as_str();
    let allowed = lock(&hosts);
    let got_link = find_link(raw, describe, &allowed);
    let link_ok = match (&want_link, &got_link) {
        (Some(want), Ok(l)) => {
            // compared as URLs: the table writes them as the mail does (`'` unescaped)
            Url::parse(want).is_ok_and(|w| w == l.url)
                && allowed(&l.url)
                && l.score > 0
                && !l.reasons.is_empty()
        }
        (Some(_), _) | (None, Ok(_)) => false,
        (None, Err(LinkError::OnlyOutside { candidates })) => {
            want_outside.as_ref().is_some_and(|want| {
                candidates.iter().map(Url::as_str).collect::<Vec<_>>() == *want
                    && candidates.iter().all(|u| !allowed(u))
            })
        }
        (None, Err(LinkError::Refused { url, .. })) => {
            want_refused.as_deref() == Some(url.as_str())
        }
        (None, Err(LinkError::Ambiguous { first, second })) => {
            want_ambiguous.as_ref().is_some_and(|want| {
                let mut got = vec![first.to_string(), second.to_string()];
                let mut want = want.clone();
                got.sort();
                want.sort();
                got == want
            })
        }
        (None, Err(LinkError::NoCandidates)) => {
            want_outside.is_none() && want_refused.is_none() && want_ambiguous.is_none()
        }
    };
    if !link_ok {
        let expected = match (&want_link, &want_outside, &want_refused, &want_ambiguous) {
            (Some(l), ..) => format!("Ok({l})"),
            (None, Some(o), ..) => format!("OnlyOutside({})", o.join(", ")),
            (None, None, Some(r), _) => format!("Refused({r})"),
            (None, None, None, Some(a)) => format!("Ambiguous({})", a.join(", ")),
            (None, None, None, None) => "NoCandidates".to_string(),
        };
        problems.push(format!(
            "link: expected {expected}, got {}",
            link_outcome(&got_link)
        ));
    }
    if let Some(want) = case["describe_matched"].as_array()
        && let Ok(l) = &got_link
    {
        let want: Vec<String> = want.iter().filter_map(opt_str).collect();
        if l.described != want {
            problems.push(format!(
                "describe: expected the words {want:?} recorded, got {:?}",
                l.described
            ));
        }
    }
    problems
}

#[test]
fn every_fixture_is_in_the_table_and_the_corpus_is_large_enough() {
    for (corpus, at_least) in [(SHAPED, 45), (APPS, 21), (STEERING, 6)] {
        fixtures_listed(corpus, at_least);
    }
}

fn fixtures_listed(corpus: &str, at_least: usize) {
    let listed: BTreeSet<String> = cases(corpus)
        .iter()
        .filter_map(|c| opt_str(&c["file"]))
        .collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(corpus_dir(corpus))
        .expect("fixtures/emails exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".eml"))
        .collect();
    let missing: Vec<_> = on_disk.difference(&listed).collect();
    let dangling: Vec<_> = listed.difference(&on_disk).collect();
    assert!(
        missing.is_empty() && dangling.is_empty(),
        "{corpus}: fixtures without expectations: {missing:?}; expectations without fixtures: {dangling:?}"
    );
    assert!(
        on_disk.len() >= at_least,
        "{corpus} has only {} messages",
        on_disk.len()
    );
}

thread_local! {
    static PANICKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[test]
fn truncated_fixtures_never_panic() {
    // The extractors catch panics themselves; a hook still sees one, so count them here.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICKED.with(|p| p.set(true));
        previous(info);
    }));
    let mut panicked_on: Vec<String> = Vec::new();
    for (corpus, case) in [SHAPED, APPS, STEERING]
        .into_iter()
        .flat_map(|c| cases(c).into_iter().map(move |case| (c, case)))
    {
        let file = case["file"].as_str().unwrap_or_default();
        let Ok(raw) = std::fs::read(corpus_dir(corpus).join(file)) else {
            continue;
        };
        for cut in [raw.len() / 3, raw.len() / 2, raw.len() * 9 / 10] {
            let piece = &raw[..cut];
            PANICKED.with(|p| p.set(false));
            let _ = find_otp(piece, "test+1234@inbox.test");
            let _ = find_link(piece, None, &|_| true);
            let _ = find_link(piece, Some("the link to set a password"), &|_| true);
            if PANICKED.with(|p| p.get()) {
                panicked_on.push(format!("{file} cut at {cut}"));
            }
        }
    }
    assert!(
        panicked_on.is_empty(),
        "extraction panicked on: {panicked_on:?}"
    );
}

/// Words that say a link undoes or destroys something, matched from a word's start, kept apart
/// from the extractor's own list so that this test judges it.
const UNDOING: &[&str] = &[
    "cancel",
    "invalidat",
    "unsubscrib",
    "delet",
    "remov",
    "deactivat",
    "revok",
    "optout",
    "abmeld",
    "désinscri",
    "desinscri",
    "löschen",
    "supprim",
];
/// Phrases (lower-case words in a row) that say the same.
const UNDOING_PHRASES: &[&[&str]] = &[
    &["opt", "out"],
    &["not", "you"],
    &["not", "me"],
    &["close", "your", "account"],
    &["close", "account"],
    &["report", "this"],
    &["did", "not", "request"],
    &["didn", "t", "request"],
    &["did", "not", "register"],
    &["didn", "t", "register"],
];

fn undoing(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if let Some(w) = words
        .iter()
        .find(|w| UNDOING.iter().any(|u| w.starts_with(u)))
    {
        return Some(w.clone());
    }
    UNDOING_PHRASES
        .iter()
        .find(|p| {
            words
                .windows(p.len())
                .any(|win| win.iter().zip(p.iter()).all(|(a, b)| a == b))
        })
        .map(|p| p.join(" "))
}

#[test]
fn no_mail_in_any_corpus_opens_a_link_that_undoes() {
    let mut opened = 0;
    let mut wrong = Vec::new();
    for corpus in [SHAPED, APPS, STEERING] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir(corpus))
            .expect("the corpus exists")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "eml"))
            .collect();
        files.sort();
        for file in files {
            let raw = std::fs::read(&file).expect("readable");
            // Every host allowed: the lock must not be what keeps such a link out.
            let Ok(link) = find_link(&raw, None, &|_: &Url| true) else {
                continue;
            };
            opened += 1;
            let address = percent_decoded(&format!(
                "{} {}",
                link.url.path(),
                link.url.query().unwrap_or_default()
            ));
            for (what, text) in [("address", address.as_str()), ("text", &link.anchor_text)] {
                if let Some(word) = undoing(text) {
                    wrong.push(format!(
                        "{}: opens {} (its {what} says {word:?})",
                        file.display(),
                        link.url
                    ));
                }
            }
        }
    }
    println!("{opened} mails open a link; none of them undoes");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Most of the rest carry only a code; a few links are refused or ambiguous.
    assert!(opened >= 40, "only {opened} mails opened a link");
}

fn percent_decoded(s: &str) -> String {
    url::form_urlencoded::parse(s.as_bytes())
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_undoing_words_of_this_test_are_found_as_words() {
    assert_eq!(
        undoing("Special:InvalidateEmail/abc").as_deref(),
        Some("invalidateemail")
    );
    assert_eq!(
        undoing("If this was not you, click here").as_deref(),
        Some("not you")
    );
    assert_eq!(undoing("Verify your email address"), None);
    assert_eq!(undoing("/confirm?token=abc&validate=1"), None);
}
