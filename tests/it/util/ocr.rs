//! Reading a picture as a person would: Debian's `tesseract` OCR over a PNG, and whether what
//! it read shows a value. With `CI=true` a missing tesseract is a failure, never a skip.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The tesseract binary, or `None` (and a note) when it is missing outside CI.
pub fn tesseract() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("tesseract"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let why = "tesseract is not installed (scripts/install-deps tesseract installs it)";
        if super::in_ci() {
            panic!("CI=true, so this is a failure, not a skip: {why}");
        }
        eprintln!("skipping a test that reads screenshots by OCR: {why}");
    }
    found
}

/// What tesseract reads in the image at `png` (English, automatic page segmentation).
pub fn read(tesseract: &Path, png: &Path) -> String {
    let out = Command::new(tesseract)
        .arg(png)
        .arg("stdout")
        .args(["-l", "eng"])
        .env("OMP_THREAD_LIMIT", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", tesseract.display()));
    assert!(
        out.status.success(),
        "tesseract failed on {}: {}",
        png.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Letters and digits only, upper-cased: what is left to compare of a text OCR read.
fn plain(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The part of `value` that `read` shows: the first run of [`LEGIBLE_RUN`] or more of its
/// characters in a row, ignoring case, spaces and punctuation. A picture that lets OCR read
/// four characters of a secret in a row shows too much of it.
pub fn legible_part(read: &str, value: &str) -> Option<String> {
    let (read, value) = (plain(read), plain(value));
    let chars: Vec<char> = value.chars().collect();
    chars
        .windows(LEGIBLE_RUN.min(chars.len()))
        .map(|w| w.iter().collect::<String>())
        .find(|run| read.contains(run.as_str()))
}

/// Whether `read` shows all of `value`, ignoring case, spaces and punctuation.
pub fn reads_whole(read: &str, value: &str) -> bool {
    plain(read).contains(&plain(value))
}

/// How many characters of a value in a row count as showing it.
pub const LEGIBLE_RUN: usize = 4;

#[test]
fn a_run_of_four_characters_in_a_row_is_legible_whatever_the_case_and_spacing() {
    assert_eq!(
        legible_part("Welcome wal rus-48", "WALRUS4826"),
        Some("WALR".into())
    );
    assert_eq!(
        legible_part("W4LRU5 48 2 6", "WALRUS4826"),
        Some("4826".into())
    );
    assert_eq!(legible_part("WAL ~~ S48", "WALRUS4826"), None);
    assert_eq!(legible_part("", "WALRUS4826"), None);
}
