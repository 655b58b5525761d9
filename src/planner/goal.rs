//! The goal as the planner and the cache see it: normalised, with its target site.

use super::PlannerError;

/// A goal ready for planning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goal {
    /// Trimmed, whitespace collapsed, the inbox address replaced by `{{inbox_address}}`.
    pub normalised: String,
    /// The registrable domain of the first URL or host the goal names (`shop.example`).
    pub site: String,
}

/// Normalises a goal and finds its site. Empty goals and goals that name no site are
/// invalid input: the plan lock is built from the sites a request names, so a goal without
/// one could never visit anything.
pub fn prepare(goal: &str, inbox_address: Option<&str>) -> Result<Goal, PlannerError> {
    prepare_with(goal, inbox_address, &crate::plan::Vars::default())
}

/// [`prepare`], where the goal may name its site through a caller variable
/// (`{{base_url}}/signup` with `base_url=https://shop.example`): the site is the one the
/// goal names once the variables are filled in; the model still reads the variable.
pub fn prepare_with(
    goal: &str,
    inbox_address: Option<&str>,
    vars: &crate::plan::Vars,
) -> Result<Goal, PlannerError> {
    let normalised = normalise(goal, inbox_address);
    if normalised.is_empty() {
        return Err(PlannerError::EmptyGoal);
    }
    let rendered = rendered(&normalised, vars);
    let Some(host) = crate::lock::hosts_in_text(&rendered).into_iter().next() else {
        return Err(PlannerError::NoSite {
            goal: normalised.clone(),
        });
    };
    Ok(Goal {
        site: crate::lock::site_of(&host),
        normalised,
    })
}

/// The goal with the caller variables it uses filled in (others left as written).
pub fn rendered(goal: &str, vars: &crate::plan::Vars) -> String {
    let mut out = goal.to_string();
    for name in vars.caller_names() {
        if let Some(value) = vars.value(name) {
            out = out.replace(&format!("{{{{{name}}}}}"), value);
        }
    }
    out
}

/// Trims, collapses whitespace and replaces the inbox address (any case) by its variable.
pub fn normalise(goal: &str, inbox_address: Option<&str>) -> String {
    let collapsed = goal.split_whitespace().collect::<Vec<_>>().join(" ");
    match inbox_address.map(str::trim).filter(|a| !a.is_empty()) {
        Some(addr) => replace_ignoring_ascii_case(&collapsed, addr, "{{inbox_address}}"),
        None => collapsed,
    }
}

fn replace_ignoring_ascii_case(haystack: &str, needle: &str, with: &str) -> String {
    let lower_h = haystack.to_ascii_lowercase();
    let lower_n = needle.to_ascii_lowercase();
    let mut out = String::with_capacity(haystack.len());
    let mut last = 0;
    // ASCII lower-casing keeps byte offsets, so positions in `lower_h` index `haystack`.
    for (i, _) in lower_h.match_indices(&lower_n) {
        if i < last {
            continue;
        }
        out.push_str(&haystack[last..i]);
        out.push_str(with);
        last = i + needle.len();
    }
    out.push_str(&haystack[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_whitespace_and_the_inbox_address() {
        assert_eq!(
            normalise(
                "  Sign up at\n shop.example   with Me@Inbox.test ",
                Some("me@inbox.test")
            ),
            "Sign up at shop.example with {{inbox_address}}"
        );
        assert_eq!(normalise("a  b", None), "a b");
    }

    #[test]
    fn finds_the_site_of_the_first_url_or_host() {
        let g = prepare(
            "Sign up at https://www.shop.example/signup then visit other.test",
            None,
        )
        .unwrap();
        assert_eq!(g.site, "shop.example");
        let g = prepare("create an account on accounts.shop.co.uk", None).unwrap();
        assert_eq!(g.site, "shop.co.uk");
        let g = prepare("log in at http://127.0.0.1:8080/login", None).unwrap();
        assert_eq!(g.site, "127.0.0.1");
    }

    #[test]
    fn an_inbox_address_is_not_a_site() {
        let e = prepare("sign up for the newsletter with me@inbox.test", None).unwrap_err();
        assert!(matches!(e, PlannerError::NoSite { .. }), "{e}");
        assert!(matches!(
            prepare(" \n ", None),
            Err(PlannerError::EmptyGoal)
        ));
    }
}
