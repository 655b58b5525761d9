//! Roles and names as assistive technology computes them, checked in real Chromium against
//! examples of the accessible-name computation (accname 1.2) and HTML-AAM's implicit roles:
//! what the locator ranks with (`Tab::accessible` reads the same functions).

use std::time::Duration;

use crate::util::{self, need_browser, site};

/// Element id, role, accessible name (normalised: lower case, spaces collapsed).
const EXPECTED: &[(&str, &str, &str)] = &[
    // HTML-AAM: implicit roles by element and attributes.
    ("banner", "banner", ""),
    ("nav", "navigation", ""),
    ("main", "main", ""),
    ("aside", "complementary", ""),
    ("footer", "contentinfo", ""),
    ("link", "link", "home"),
    ("no-href", "generic", ""),
    ("h1", "heading", "sign in"),
    ("h3", "heading", "details"),
    ("p", "paragraph", ""),
    ("checkbox", "checkbox", "remember me"),
    ("radio", "radio", "monthly"),
    ("range", "slider", "volume"),
    ("number", "spinbutton", "quantity"),
    ("search", "searchbox", "search the site"),
    ("list", "combobox", "colour"),
    ("select", "combobox", "plan"),
    ("option", "option", "basic"),
    ("multi", "listbox", "tags"),
    ("textarea", "textbox", "message"),
    ("img", "img", "logo"),
    ("img-empty", "presentation", ""),
    ("hr", "separator", ""),
    ("fieldset", "group", "shipping"),
    ("table", "table", "prices"),
    ("div-button", "button", "buy now"),
    ("div", "generic", ""),
    // accname 1.2: aria-labelledby (self-reference, one level only), aria-label, content with
    // hidden parts left out, a hidden element referenced directly, native labels, input
    // values and alt, title as the last resort.
    ("del_row1", "button", "delete documentation.pdf"),
    ("el1", "generic", "hello"),
    ("el2", "generic", ""),
    ("aria-label", "button", "close"),
    ("hidden-part", "button", "hello world"),
    ("labelledby-hidden", "textbox", "hidden label"),
    ("wrapped", "textbox", "email"),
    ("for-label", "textbox", "password"),
    ("submit", "button", "send it"),
    ("image", "button", "go"),
    ("logout", "link", "logout"),
    ("title-only", "link", "help"),
];

#[test]
fn roles_and_names_follow_accname_and_html_aam() {
    need_browser!();
    let url = site().url("/accname.html");
    util::rt().block_on(async {
        let browser = util::browser().unwrap();
        let tab = browser
            .new_tab(planlock::lock::Lock::of_hosts(["127.0.0.1"]).unwrap())
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        tab.navigate(&url, deadline).await.unwrap();
        let mut wrong = Vec::new();
        for (id, role, name) in EXPECTED {
            let found = tab.accessible(&format!("#{id}"), deadline).await.unwrap();
            assert_eq!(found.len(), 1, "#{id}: {found:?}");
            let got = &found[0];
            if got.role != *role || got.name != *name {
                wrong.push(format!(
                    "#{id}: expected {role} \"{name}\", got {} \"{}\"",
                    got.role, got.name
                ));
            }
        }
        browser.close_tab(tab).await;
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    });
}

/// `src/browser/vendor/accname.js` is what `scripts/accname/build` makes from the
/// dom-accessibility-api version pinned in `scripts/accname/package-lock.json`: a bundle
/// edited by hand, or left behind by a version bump, fails here.
#[test]
fn the_bundled_accessible_name_computation_is_fresh() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let has_npm = std::process::Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_npm {
        assert!(!util::in_ci(), "CI=true but npm is not installed");
        eprintln!("skipping: npm is not installed");
        return;
    }
    let check = std::process::Command::new(root.join("scripts/accname/build"))
        .arg("--check")
        .output()
        .expect("run scripts/accname/build --check");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
