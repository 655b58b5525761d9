//! Links and codes are ranked as the locator ranks elements: by named rules in a fixed order,
//! each deciding only between the candidates the rules before it left equal; the rule that put
//! the chosen one ahead of the next is recorded (`decided_by`). A rule is one row of its
//! table; where a rule weighs several details (a link's words, a code's marks), each weight
//! has a name and a sentence where the details are read.

use std::cmp::Ordering;

/// One rule of a ranking: its name, as recorded, and a candidate's value under it (the higher
/// ranks first).
pub(super) struct Rule<C> {
    pub(super) name: &'static str,
    pub(super) value: fn(&C) -> i64,
}

/// A rule named `name` that ranks by `value`: one row of a table.
pub(super) const fn rule<C>(name: &'static str, value: fn(&C) -> i64) -> Rule<C> {
    Rule { name, value }
}

/// How `a` compares with `b` under `rules`: `Greater` when `a` ranks first.
pub(super) fn compare<C>(a: &C, b: &C, rules: &[Rule<C>]) -> Ordering {
    rules
        .iter()
        .map(|r| (r.value)(a).cmp(&(r.value)(b)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// Sorts `candidates` best first under `rules`; among equals the first found stays first.
pub(super) fn sort<C, T>(candidates: &mut [T], rules: &[Rule<C>], of: impl Fn(&T) -> &C) {
    candidates.sort_by(|a, b| compare(of(b), of(a), rules));
}

/// The rule that puts `first` ahead of `second`, or `None` when they rank alike.
pub(super) fn decided_by<C>(first: &C, second: &C, rules: &[Rule<C>]) -> Option<&'static str> {
    rules
        .iter()
        .find(|r| (r.value)(first) != (r.value)(second))
        .map(|r| r.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: [Rule<(bool, i32)>; 2] = [
        rule("first", |c| c.0 as i64),
        rule("second", |c| c.1 as i64),
    ];

    #[test]
    fn a_rule_decides_only_what_the_rules_before_it_left_equal() {
        let mut cs = [(false, 9), (true, 1), (true, 5), (true, 5)];
        sort(&mut cs, &RULES, |c| c);
        assert_eq!(cs, [(true, 5), (true, 5), (true, 1), (false, 9)]);
        assert_eq!(decided_by(&cs[1], &cs[2], &RULES), Some("second"));
        assert_eq!(decided_by(&cs[2], &cs[3], &RULES), Some("first"));
        assert_eq!(decided_by(&cs[0], &cs[1], &RULES), None);
    }
}
