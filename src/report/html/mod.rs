//! The static HTML report: `DIR/index.html` lists every run in the directory, and each run
//! has `DIR/RUN_ID/index.html` (timeline, steps with their details and screenshots, the
//! failure sentence) beside its `result.json`, `events.jsonl` and screenshots. Pages need no
//! network and no JavaScript; a Content-Security-Policy forbids both, since they show text
//! taken from pages and emails.

mod index;
mod run;
mod timeline;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{PlanReport, event_line};
use crate::runner::RunResult;

const PAGE: &str = include_str!("page.html");
const CSS: &str = include_str!("report.css");

/// Writes the pages of these plans' runs into `dir` and rebuilds its index from every run
/// the directory holds (earlier invocations included). Returns the index's path.
pub fn write_html(dir: &Path, reports: &[PlanReport]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    for r in reports {
        if let Some(result) = r.result() {
            let run_dir = dir.join(&result.run_id);
            std::fs::create_dir_all(&run_dir)?;
            let shots = run::gather_screenshots(&run_dir, result)?;
            let json = serde_json::to_string_pretty(result).map_err(std::io::Error::other)?;
            std::fs::write(run_dir.join("result.json"), json)?;
            let mut events = String::new();
            for e in r.events() {
                events.push_str(&event_line(e));
                events.push('\n');
            }
            std::fs::write(run_dir.join("events.jsonl"), events)?;
            let html = run::page(r, result, &shots);
            std::fs::write(run_dir.join("index.html"), html)?;
        }
    }
    let runs = index::runs_in(dir);
    let results: Vec<&RunResult> = runs.iter().map(|r| &r.result).collect();
    let json = serde_json::to_string_pretty(&results).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("results.json"), json)?;
    let path = dir.join("index.html");
    std::fs::write(&path, index::page(&runs, reports))?;
    Ok(path)
}

/// A whole page: the shell template with its slots filled (each slot's text already HTML).
fn shell(title: &str, home: &str, body: &str) -> String {
    let generated = format!(
        "generated {}",
        chrono::Utc::now().format("%Y-%m-%d %H:%M:%S UTC")
    );
    fill(
        PAGE,
        &[
            ("title", &esc(title)),
            ("css", CSS),
            ("home", &esc(home)),
            ("generated", &esc(&generated)),
            ("body", body),
        ],
    )
}

/// Replaces each `{{name}}` of `template` in one pass, so filled text is never re-read.
fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        match after.find("}}") {
            Some(close) => {
                let name = &after[..close];
                match slots.iter().find(|(n, _)| *n == name) {
                    Some((_, value)) => out.push_str(value),
                    None => out.push_str(&rest[open..open + 2 + close + 2]),
                }
                rest = &after[close + 2..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text as HTML (element content and quoted attribute values alike).
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `1.234 s` or `87 ms`.
fn took(ms: u64) -> String {
    if ms >= 1000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

/// A `<span class="badge STATUS">STATUS</span>`.
fn badge(status: &str) -> String {
    let mut s = String::new();
    let _ = write!(s, "<span class=\"badge {0}\">{0}</span>", esc(status));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_filled_once() {
        assert_eq!(
            fill("<{{a}}|{{b}}|{{c}}>", &[("a", "{{b}}"), ("b", "x")]),
            "<{{b}}|x|{{c}}>"
        );
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
