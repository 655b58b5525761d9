//! What a page, a mail or a plan can make planlock print: nothing that drives a terminal or
//! a CI log. Control characters (C0, C1, DEL; CR and LF included), the controls that reorder
//! a line (bidirectional overrides, embeddings, isolates and marks) and the line and
//! paragraph separators are escaped in every string that came from outside, so no line can
//! be forged or shown in another order than it is written. Checked on stderr's bytes.

use std::io::Read;
use std::net::TcpListener;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util;
use crate::util::smtp::send_mail;

/// A free loopback port for the run's embedded receiver.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The run's inbox address, once its `run_started` event is written.
fn run_address(events: &std::path::Path) -> String {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if let Ok(text) = std::fs::read_to_string(events)
            && let Some(line) = text.lines().next()
            && let Ok(event) = serde_json::from_str::<Value>(line)
            && let Some(address) = event["detail"]["inbox_address"].as_str()
        {
            return address.to_string();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no run_started event in {}", events.display());
}

/// The characters that reorder what a terminal shows (Unicode's Bidi_Control property) or
/// break its line (the line and paragraph separators): written here by hand, so the test does
/// not lean on the table planlock reads.
const REORDERING: &[char] = &[
    '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{2028}', '\u{2029}',
];

/// Lines a page or mail must never be able to start.
const FORGED: &[&str] = &[
    "✓ succeeded",
    "1 passed, 0 failed",
    "::error",
    "::add-mask::",
    "::warning",
];

#[test]
fn page_mail_and_plan_text_reach_stderr_with_every_control_character_escaped() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("forgery.json");
    // The plan's own strings carry control characters too, as a plan a model wrote after
    // reading a page could.
    std::fs::write(
        &plan,
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/terminal-forgery.html"},
          {"type":"wait_for_email","timeout_seconds":30},
          {"type":"click","describe":"the Confirm button\u001b[2J\n::error title=plan::forged\u202edeliaf\u202c\u2028::warning x","text":"Confirm order","timeout_seconds":2},
          {"type":"done","summary":"x"}]}"#
            .replace("{SITE}", &util::site().url("")),
    )
    .unwrap();
    let events = dir.path().join("events.jsonl");
    let port = free_port();
    let mut child = util::planlock()
        .arg("run")
        .arg(&plan)
        .args([
            "--inbox",
            &format!("smtp://127.0.0.1:{port}?domain=forge.test"),
        ])
        .arg("--events")
        .arg(&events)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let address = run_address(&events);
    // A subject whose encoded words hold line ends, OSC 52, a screen clear and a C1 CSI, an
    // override that shows "failed" as "succeeded" reversed, isolates, marks and separators.
    let subject = "Welcome\n✓ succeeded in 1 ms: done\n1 passed, 0 failed\n\
                   ::error title=Build::forged\r::add-mask::secret\u{1b}]52;c;cHduZWQ=\u{7}\
                   \u{1b}[2J\u{9b}2J\u{7f} \u{202e}dedeeccus\u{202c} \u{2066}\u{2067}\u{2068}x\u{2069}\
                   \u{202a}\u{202b}\u{202d}\u{200e}\u{200f}\u{61c}\u{2028}::error x\u{2029}::warning y";
    let encoded = format!(
        "=?utf-8?b?{}?=",
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, subject)
    );
    let raw = format!(
        "From: Shop <noreply@shop.example>\r\nTo: {address}\r\nSubject: {encoded}\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nWelcome.\r\n"
    );
    util::rt().block_on(send_mail(
        format!("127.0.0.1:{port}").parse().unwrap(),
        "noreply@shop.example",
        &[&address],
        raw.as_bytes(),
    ));
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    let text = String::from_utf8_lossy(&stderr);
    assert_eq!(status.code(), Some(1), "the click fails:\n{text}");

    for (i, c) in text.char_indices() {
        assert!(
            c == '\n' || !(c.is_control() || REORDERING.contains(&c)),
            "control character {c:?} at byte {i} of stderr:\n{}",
            text.escape_debug()
        );
    }
    for line in text.lines() {
        let line = line.trim_start();
        for forged in FORGED {
            assert!(
                !line.starts_with(forged),
                "a line starts with {forged:?}:\n{text}"
            );
        }
    }
    // What was escaped is still there to read, on the lines planlock meant.
    assert!(
        text.contains(r"email_subject=Welcome\n✓ succeeded in 1 ms: done\n1 passed"),
        "{text}"
    );
    assert!(text.contains(r"\u{1b}]52;c;cHduZWQ=\u{7}"), "{text}");
    assert!(text.contains(r"Confirm button\u{1b}[2J\n::error"), "{text}");
    assert!(
        text.contains(r"\u{202e}dedeeccus\u{202c} \u{2066}\u{2067}\u{2068}x\u{2069}")
            && text.contains(r"\u{200e}\u{200f}\u{61c}\u{2028}::error x\u{2029}::warning y"),
        "{text}"
    );
    assert!(
        text.contains(r"forged\u{202e}deliaf\u{202c}\u{2028}::warning"),
        "{text}"
    );
}
