//! Every word list and phrase table planlock reads pages and mail with, as data, each with a
//! line on what it is for. The code that reads with them lives with its room (the mail's
//! readers in `inbox/extract`, the review in `planner`); the lists live here once, so that a
//! word is added in one place and a newcomer finds them together.

pub(crate) mod codes;
pub(crate) mod entities;
pub(crate) mod injection;
pub(crate) mod links;
pub(crate) mod mail;
pub(crate) mod negation;
#[cfg(test)]
mod pages;
pub(crate) mod review;
pub(crate) mod words;

/// `browser/vocabulary.js`: the locator's tables from [`pages`] and the code words of
/// [`codes`], as the JavaScript object the locator is given. Only the test below reads [`pages`] in Rust; it writes the file when
/// blessed and fails while the file is stale.
#[cfg(test)]
fn locator_tables_js() -> String {
    use serde_json::{Map, Value, json};
    let pairs = |rows: &[(&str, &str)]| -> Map<String, Value> {
        rows.iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect()
    };
    let tables = json!({
        "role_words": pairs(pages::ROLE_WORDS),
        "role_phrases": pages::ROLE_PHRASES,
        "place_words": pages::PLACE_WORDS,
        "places": pages::PLACES.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<Map<_, _>>(),
        "equivalent": pages::EQUIVALENT,
        "submit_words": pages::SUBMIT_WORDS,
        "code_words": codes::CODE_WORDS,
        "inside_other_words": codes::INSIDE_OTHER_WORDS,
        "other_codes": codes::OTHER_CODES,
        "other_code_fields": pages::OTHER_CODE_FIELDS,
        "email_field_words": pages::EMAIL_FIELD_WORDS,
        "password_field_words": pages::PASSWORD_FIELD_WORDS,
        "error_words": pages::ERROR_WORDS,
        "user_content_marks": pages::USER_CONTENT_MARKS,
        "error_marks": pages::ERROR_MARKS,
        "success_marks": pages::SUCCESS_MARKS,
    });
    // One table a line: generated data, read by the locator, not by people.
    let lines: Vec<String> = tables
        .as_object()
        .expect("an object")
        .iter()
        .map(|(name, table)| format!("  {}: {table}", Value::String(name.clone())))
        .collect();
    let pretty = format!("{{\n{}\n}}", lines.join(",\n"));
    format!(
        "// Generated from src/vocabulary/pages.rs and codes.rs (`PLANLOCK_BLESS=1 cargo test --lib\n\
         // vocabulary`): edit those, not this file. The word lists the locator reads pages with, given to\n\
         // the locator (locator/) as `vocabulary`.\n{pretty}\n"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_locators_tables_are_generated_from_the_vocabulary() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/browser/vocabulary.js");
        let generated = super::locator_tables_js();
        if std::env::var_os("PLANLOCK_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(path, &generated).expect("write src/browser/vocabulary.js");
        }
        let checked_in = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "src/browser/vocabulary.js is stale: run `PLANLOCK_BLESS=1 cargo test --lib vocabulary` \
             and commit it"
        );
    }
}
