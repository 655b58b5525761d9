//! The rooms of the library, lowest first: a room's code may use the rooms before it, never
//! one after it, so words and word lists flow up (the runner words what the browser found;
//! the vocabulary serves everyone) and a lower room never reaches for a higher one's.

use std::collections::BTreeSet;

/// Lowest first. A new top-level module takes its place here.
const ROOMS: &[&str] = &[
    "reading",
    "vocabulary",
    "wait",
    "phase",
    "error",
    "lock",
    "plan",
    "inbox",
    "browser",
    "runner",
    "report",
    "planner",
    "pipeline",
    "demo",
    "server",
];

/// The names of `order` a file's code (its tests left out) reaches through one of `prefixes`,
/// as paths or in `use` lines, groups included (`crate::plan::Step`,
/// `use super::{api, state::AppState}`). A name not in `order` counts as `other` when there
/// is one, else not at all. Shared with the server's own order of modules.
pub(crate) fn used_after(
    source: &str,
    prefixes: &[&str],
    order: &[&'static str],
    other: Option<&'static str>,
) -> BTreeSet<&'static str> {
    let code = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(source);
    let mut out = BTreeSet::new();
    for prefix in prefixes {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(str::trim)
                    .collect(),
                None => vec![rest],
            };
            for name in names {
                let end = name
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(name.len());
                if end == 0 {
                    continue;
                }
                let known = order.iter().find(|n| **n == &name[..end]).copied();
                out.extend(known.or(other));
            }
        }
    }
    out
}

/// Every `.rs` file below `dir`.
fn sources(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

#[test]
fn no_room_uses_a_room_above_it() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for path in sources(&src) {
        let relative = path.strip_prefix(&src).expect("below src");
        let first = relative.components().next().expect("a path");
        let name = first.as_os_str().to_string_lossy();
        let room = name.trim_end_matches(".rs");
        let Some(rank) = ROOMS.iter().position(|r| *r == room) else {
            continue; // lib.rs, main.rs, cli/ (the binary), this file
        };
        let source = std::fs::read_to_string(&path).expect("readable");
        for used in used_after(&source, &["crate::"], ROOMS, None) {
            let used_rank = ROOMS.iter().position(|r| *r == used).expect("listed");
            if used_rank > rank {
                wrong.push(format!("{} uses {used}", relative.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "a room uses one above it: {wrong:?}");
}

#[test]
fn every_top_level_module_is_a_room() {
    let lib = include_str!("lib.rs");
    for line in lib.lines() {
        let Some(module) = line
            .trim_start_matches("pub ")
            .strip_prefix("mod ")
            .and_then(|m| m.strip_suffix(';'))
        else {
            continue;
        };
        assert!(
            ROOMS.contains(&module) || module == "rooms",
            "lib.rs declares `{module}`: give it its place in ROOMS"
        );
    }
}

#[test]
fn rooms_are_read_from_paths_and_use_lines() {
    let source = "use crate::plan::Step;\nuse crate::{inbox, lock::Lock};\n\
                  fn f() { crate::runner::x(); crate::planlock(); }\n\
                  #[cfg(test)]\nmod tests {\n    use crate::server;\n}\n";
    let used: Vec<&str> = used_after(source, &["crate::"], ROOMS, None)
        .into_iter()
        .collect();
    assert_eq!(used, ["inbox", "lock", "plan", "runner"]);
}
