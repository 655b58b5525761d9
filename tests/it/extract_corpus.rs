//! Runs every real-world-shaped message in `fixtures/emails/` through `find_otp` and
//! `find_link` and compares with `fixtures/emails/expected.json`, reporting all mismatches.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use planlock::inbox::extract::{LinkError, OtpSource, find_link, find_otp, mask_code};
use serde_json::Value;
use url::Url;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/emails")
}

fn cases() -> Vec<Value> {
    let path = corpus_dir().join("expected.json");
    let text = std::fs::read_to_string(&path).expect("fixtures/emails/expected.json is readable");
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
    let cases = cases();
    let mut failures: Vec<String> = Vec::new();
    let mut passed = 0;
    for case in &cases {
        let file = case["file"].as_str().expect("each case names its file");
        let raw = match std::fs::read(corpus_dir().join(file)) {
            Ok(raw) => raw,
            Err(e) => {
                failures.push(format!("{file}: cannot read: {e}"));
                continue;
            }
        };
        let recipient = case["recipient"].as_str().unwrap_or("test@inbox.test");
        let hosts: Vec<String> = case["allowed_hosts"]
            .as_array()
            .map(|a| a.iter().filter_map(opt_str).collect())
            .unwrap_or_default();
        let mut problems: Vec<String> = Vec::new();

        // --- OTP
        let want_otp = opt_str(&case["otp"]);
        let got = find_otp(&raw, recipient);
        let got_code = got.as_ref().map(|o| o.code.clone());
        if got_code != want_otp {
            problems.push(format!("otp: expected {want_otp:?}, got {got_code:?}"));
        }
        if let (Some(o), Some(want_source)) = (&got, case["otp_source"].as_str())
            && source_name(o.source) != want_source
        {
            problems.push(format!(
                "otp source: expected {want_source}, got {}",
                source_name(o.source)
            ));
        }
        if let Some(o) = &got {
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
        }

        // --- link
        let want_link = opt_str(&case["link"]);
        let want_outside: Option<Vec<String>> = case["outside"]
            .as_array()
            .map(|a| a.iter().filter_map(opt_str).collect());
        let allowed = lock(&hosts);
        let got_link = find_link(&raw, &allowed);
        let describe = |r: &Result<planlock::inbox::extract::Link, LinkError>| match r {
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
        };
        let link_ok = match (&want_link, &want_outside, &got_link) {
            (Some(want), _, Ok(l)) => l.url.as_str() == want && allowed(&l.url) && l.score > 0,
            (None, Some(want), Err(LinkError::OnlyOutside { candidates })) => {
                candidates.iter().map(Url::as_str).collect::<Vec<_>>() == *want
                    && candidates.iter().all(|u| !allowed(u))
            }
            (None, None, Err(LinkError::NoCandidates)) => true,
            _ => false,
        };
        if !link_ok {
            let expected = match (&want_link, &want_outside) {
                (Some(l), _) => format!("Ok({l})"),
                (None, Some(o)) => format!("OnlyOutside({})", o.join(", ")),
                (None, None) => "NoCandidates".to_string(),
            };
            problems.push(format!(
                "link: expected {expected}, got {}",
                describe(&got_link)
            ));
        }

        if problems.is_empty() {
            passed += 1;
        } else {
            let note = case["note"].as_str().unwrap_or_default();
            failures.push(format!("{file} ({note}):\n    {}", problems.join("\n    ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases failed:\n\n{}\n",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    assert_eq!(passed, cases.len());
}

#[test]
fn every_fixture_is_in_the_table_and_the_corpus_is_large_enough() {
    let listed: BTreeSet<String> = cases().iter().filter_map(|c| opt_str(&c["file"])).collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(corpus_dir())
        .expect("fixtures/emails exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".eml"))
        .collect();
    let missing: Vec<_> = on_disk.difference(&listed).collect();
    let dangling: Vec<_> = listed.difference(&on_disk).collect();
    assert!(
        missing.is_empty() && dangling.is_empty(),
        "fixtures without expectations: {missing:?}; expectations without fixtures: {dangling:?}"
    );
    assert!(
        on_disk.len() >= 45,
        "corpus has only {} messages",
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
    for case in cases() {
        let file = case["file"].as_str().unwrap_or_default();
        let Ok(raw) = std::fs::read(corpus_dir().join(file)) else {
            continue;
        };
        for cut in [raw.len() / 3, raw.len() / 2, raw.len() * 9 / 10] {
            let piece = &raw[..cut];
            PANICKED.with(|p| p.set(false));
            let _ = find_otp(piece, "test+1234@inbox.test");
            let _ = find_link(piece, &|_| true);
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
