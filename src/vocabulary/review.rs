//! Words that make a step look destructive or costly in the review shown before a run
//! (`planner/review.rs`), beside the undoing words links are refused for
//! ([`super::links::DESTRUCTIVE_STEMS`]: cancel, delete, remove, deactivate, unsubscribe… in
//! the languages links are read in), which the review reads too.

/// Word stems that make a step look destructive or costly (matched at the start of a word).
pub(crate) const STEMS: &[&str] = &[
    "erase", "destroy", "purge", "wipe", "payment", "paypal", "purchas", "checkout", "subscri",
    "transfer", "withdraw", "donat", "terminat", "refund", "upgrad",
];

/// Whole words that make a step look destructive or costly.
pub(crate) const WORDS: &[&str] = &[
    "pay", "pays", "paid", "buy", "buys", "order", "orders", "sell",
];

/// Word pairs (in one field, in order) that do.
pub(crate) const PAIRS: &[(&str, &str)] = &[
    ("check", "out"),
    ("close", "account"),
    ("send", "money"),
    ("place", "order"),
];
