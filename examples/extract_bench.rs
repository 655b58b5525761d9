//! Mail extraction as a benchmark: `find_otp` on every mail of the three corpora
//! (`fixtures/emails/**`), R rounds, and the time per mail (median, p95, max) and in all.
//!
//! ```text
//! cargo run --release --example extract_bench -- [ROUNDS]    # default 20
//! ```
//!
//! Not a test: it reads the mails, times the calls, and prints one table.

use std::path::Path;
use std::time::Instant;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut mails: Vec<(String, Vec<u8>)> = Vec::new();
    for corpus in [
        "fixtures/emails",
        "fixtures/emails/apps",
        "fixtures/emails/steering",
    ] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(corpus))
            .expect("the corpus exists")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "eml"))
            .collect();
        files.sort();
        for f in files {
            let raw = std::fs::read(&f).expect("readable");
            mails.push((f.display().to_string(), raw));
        }
    }
    // one round first: the keyword tables and the HTML parser's statics are built once
    for (_, raw) in &mails {
        std::hint::black_box(planlock::inbox::extract::find_otp(raw, "test+1234@inbox.test").ok());
    }
    let mut per_mail: Vec<f64> = Vec::new();
    let mut slowest = (0.0, String::new());
    let all = Instant::now();
    for _ in 0..rounds {
        for (name, raw) in &mails {
            let t = Instant::now();
            let found = planlock::inbox::extract::find_otp(raw, "test+1234@inbox.test");
            std::hint::black_box(&found);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if ms > slowest.0 {
                slowest = (ms, name.clone());
            }
            per_mail.push(ms);
        }
    }
    let total = all.elapsed().as_secs_f64() * 1000.0;
    per_mail.sort_by(f64::total_cmp);
    let at = |q: f64| per_mail[((per_mail.len() - 1) as f64 * q) as usize];
    println!(
        "find_otp: {} mails x {rounds} rounds: median {:.3} ms, p95 {:.3} ms, max {:.3} ms per mail; {:.0} ms in all",
        mails.len(),
        at(0.5),
        at(0.95),
        at(1.0),
        total
    );
    println!("slowest: {} ({:.3} ms)", slowest.1, slowest.0);
}
