//! The rooms of the library, lowest first: a room's code may use the rooms before it, never
//! one after it, so words and word lists flow up (the runner words what the browser found;
//! the vocabulary serves everyone) and a lower room never reaches for a higher one's.

/// Lowest first. A new top-level module takes its place here.
const ROOMS: &[&str] = &[
    "vocabulary",
    "wait",
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

/// The rooms a file's code (its tests left out) names as `crate::ROOM`.
fn rooms_used(source: &str) -> Vec<&'static str> {
    let code = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(source);
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if let Some(room) = ROOMS.iter().find(|r| **r == &rest[..end])
            && !out.contains(room)
        {
            out.push(*room);
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
        for used in rooms_used(&source) {
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
    let source = "use crate::plan::Step;\nfn f() { crate::runner::x(); crate::planlock(); }\n\
                  #[cfg(test)]\nmod tests {\n    use crate::server;\n}\n";
    assert_eq!(rooms_used(source), ["plan", "runner"]);
}
