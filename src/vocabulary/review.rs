//! Words that make a step look destructive or costly in the review shown before a run
//! (`planner/review.rs`).

/// Word stems that make a step look destructive or costly (matched at the start of a word).
pub(crate) const STEMS: &[&str] = &[
    "delet",
    "remov",
    "erase",
    "destroy",
    "purge",
    "wipe",
    "payment",
    "paypal",
    "purchas",
    "checkout",
    "subscri",
    "unsubscri",
    "cancel",
    "transfer",
    "withdraw",
    "donat",
    "deactivat",
    "terminat",
    "refund",
    "upgrad",
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
