//! The plan cache: plain plan files (replayable with `planlock run`), keyed by the
//! normalised goal, the target site, the model and the prompt version.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::plan::Plan;

/// A cache directory.
#[derive(Debug, Clone)]
pub struct PlanCache {
    dir: PathBuf,
}

/// The cache key: sha256 over the four parts, hex.
pub fn key(normalised_goal: &str, site: &str, model: &str, prompt_version: &str) -> String {
    let mut h = Sha256::new();
    for part in [
        "planlock-plan-cache/v1",
        normalised_goal,
        site,
        model,
        prompt_version,
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The cache key of a plan made after looking at the start page: the outline's digest is a
/// fifth part, so a page that changed is planned again.
pub fn key_with_outline(
    normalised_goal: &str,
    site: &str,
    model: &str,
    prompt_version: &str,
    outline: &str,
) -> String {
    key(
        normalised_goal,
        site,
        model,
        &format!("{prompt_version}+outline:{outline}"),
    )
}

impl PlanCache {
    pub fn new(dir: impl Into<PathBuf>) -> PlanCache {
        PlanCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `DIR/plans/SITE/KEY16.json`: grouped by site so people can find and edit them.
    pub fn path(&self, site: &str, key: &str) -> PathBuf {
        let site: String = site
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let site = if site.is_empty() || site.starts_with('.') {
            format!("_{site}")
        } else {
            site
        };
        self.dir
            .join("plans")
            .join(site)
            .join(format!("{}.json", &key[..16.min(key.len())]))
    }

    /// The cached plan text, if present.
    pub fn load(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }

    /// Writes the plan (pretty JSON) atomically, and a `.meta.json` beside it saying where
    /// it came from. The plan file stays a plain plan.
    pub fn store(&self, path: &Path, plan: &Plan, meta: &serde_json::Value) -> std::io::Result<()> {
        let parent = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(parent)?;
        let mut text = serde_json::to_string_pretty(plan).map_err(std::io::Error::other)?;
        text.push('\n');
        write_atomic(parent, path, text.as_bytes())?;
        let meta_path = path.with_extension("meta.json");
        let mut meta_text = serde_json::to_string_pretty(meta).map_err(std::io::Error::other)?;
        meta_text.push('\n');
        write_atomic(parent, &meta_path, meta_text.as_bytes())
    }
}

fn write_atomic(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_depends_on_every_part() {
        let base = key("g", "s", "m", "v");
        assert_eq!(base.len(), 64);
        assert_eq!(base, key("g", "s", "m", "v"));
        for other in [
            key("g2", "s", "m", "v"),
            key("g", "s2", "m", "v"),
            key("g", "s", "m2", "v"),
            key("g", "s", "m", "v2"),
        ] {
            assert_ne!(base, other);
        }
        // Parts are length-prefixed, so shifting text between parts changes the key.
        assert_ne!(key("ab", "c", "m", "v"), key("a", "bc", "m", "v"));
    }

    #[test]
    fn stores_plain_plans_by_site() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PlanCache::new(dir.path());
        let k = key("g", "shop.example", "m", "v");
        let path = cache.path("shop.example", &k);
        assert!(path.starts_with(dir.path().join("plans").join("shop.example")));
        let plan = Plan {
            schema: None,
            reasoning: "r".into(),
            questions: Vec::new(),
            steps: vec![crate::plan::Step::Done {
                summary: "s".into(),
                criticality: None,
            }],
        };
        cache
            .store(&path, &plan, &serde_json::json!({"goal": "g"}))
            .unwrap();
        let text = cache.load(&path).unwrap();
        let back = crate::plan::parse_and_validate(&text, &Default::default(), &Default::default())
            .unwrap();
        assert_eq!(back, plan);
        assert!(path.with_extension("meta.json").exists());
        let odd = cache.path("::1", &k);
        assert_eq!(odd.parent().unwrap().file_name().unwrap(), "__1");
    }
}
