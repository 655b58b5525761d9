//! Words as a person reads them: text and URL paths cut into lower-case words (camelCase and
//! `snake_case` split), and stems matched at the start of a word, never inside one; and the
//! words that say something undoes or destroys, as links, plans and reviews read them.

use super::links::{ADDRESS_UNDOING, DESTRUCTIVE_STEMS, PASSIVE};

/// The lower-case words of `text`. Letters and digits make words; a lower-to-upper change
/// starts a new one (`InvalidateEmail` → `invalidate`, `email`), so URL paths read like text.
/// Apostrophes inside a word are dropped (`didn't` → `didnt`).
pub(crate) fn words(text: &str) -> Vec<String> {
    placed_words(text).into_iter().map(|(w, _)| w).collect()
}

/// [`words`], each with the byte range of `text` it was read from.
pub(crate) fn placed_words(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut prev_lower = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push((std::mem::take(&mut cur), start..i));
            }
            if cur.is_empty() {
                start = i;
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else if matches!(c, '\'' | '’')
            && !cur.is_empty()
            && chars.peek().is_some_and(|(_, n)| n.is_alphabetic())
        {
            // `didn't`, `don’t`: one word
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push((std::mem::take(&mut cur), start..i));
            }
        }
    }
    if !cur.is_empty() {
        out.push((cur, start..text.len()));
    }
    out
}

/// Scripts written without spaces between words (CJK, kana, Hangul, Thai): a stem in them is
/// matched anywhere.
fn unspaced(stem: &str) -> bool {
    stem.chars().any(|c| c as u32 >= 0x0E00)
}

/// Whether `stem` occurs in `ws` (the words of a text, [`words`]) as a person would read it.
/// A one-word stem matches the start of a word (`verif` matches `verification`, never
/// `unverified`; `validat` never matches `invalidate`). A stem of several words (`sign in`,
/// `did not request`) matches consecutive words, each whole except the last, which may be a
/// prefix. Stems in unspaced scripts match anywhere in a word.
pub(crate) fn has_stem(ws: &[String], stem: &str) -> bool {
    stem_at(ws, stem).is_some()
}

/// Where `stem` starts in `ws` and how many words it spans, matched as [`has_stem`] does.
fn stem_at(ws: &[String], stem: &str) -> Option<(usize, usize)> {
    stem_matches(ws, stem).next()
}

/// Every place `stem` matches in `ws`: where it starts and how many words it spans.
pub(crate) fn stem_matches<'w>(
    ws: &'w [String],
    stem: &str,
) -> impl Iterator<Item = (usize, usize)> + 'w {
    let parts = if unspaced(stem) {
        vec![stem.to_string()]
    } else {
        words(stem)
    };
    let anywhere = unspaced(stem);
    let n = parts.len();
    let starts = if n == 0 || ws.len() < n {
        0..0
    } else {
        0..ws.len() - n + 1
    };
    starts
        .filter(move |&i| {
            let Some((last, init)) = parts.split_last() else {
                return false;
            };
            if anywhere {
                return ws[i].contains(last.as_str());
            }
            init.iter().zip(&ws[i..]).all(|(p, w)| p == w) && ws[i + init.len()].starts_with(last)
        })
        .map(move |i| (i, n))
}

/// The words of `ws` that the first of `stems` found there matched (`invalidate` for the stem
/// `invalidat`, `did not register`), if any.
pub(crate) fn first_stem(ws: &[String], stems: &[&str]) -> Option<String> {
    stems
        .iter()
        .find_map(|s| stem_at(ws, s))
        .map(|(i, n)| ws[i..i + n].join(" "))
}

/// The words of `ws` that say a link undoes or destroys something, if any: the first match of
/// [`DESTRUCTIVE_STEMS`] that is not in the passive (`will be removed`).
pub(crate) fn undoing(ws: &[String]) -> Option<String> {
    undoing_where(ws, |_| true)
}

/// [`undoing`] among the matches that start at a word `counts` keeps (a describe's words
/// outside what it names to avoid).
pub(crate) fn undoing_where(ws: &[String], counts: impl Fn(usize) -> bool) -> Option<String> {
    DESTRUCTIVE_STEMS.iter().find_map(|stem| {
        stem_matches(ws, stem)
            .find(|&(i, _)| counts(i) && (i == 0 || !PASSIVE.contains(&ws[i - 1].as_str())))
            .map(|(i, n)| ws[i..i + n].join(" "))
    })
}

/// [`undoing`] for the words of an address ([`ADDRESS_UNDOING`] too).
pub(crate) fn undoing_address(ws: &[String]) -> Option<String> {
    undoing(ws).or_else(|| {
        ws.iter()
            .find(|w| ADDRESS_UNDOING.contains(&w.as_str()))
            .cloned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_camel_case_and_keep_contractions() {
        assert_eq!(
            words("Special:InvalidateEmail/abc"),
            ["special", "invalidate", "email", "abc"]
        );
        assert_eq!(words("Didn't request it?"), ["didnt", "request", "it"]);
        assert_eq!(
            words("wp-login.php?login=bob"),
            ["wp", "login", "php", "login", "bob"]
        );
        assert_eq!(words("BESTÄTIGEN Sie"), ["bestätigen", "sie"]);
    }

    #[test]
    fn stems_match_at_the_start_of_words_only() {
        let w = words("If you did *not* register, follow this link to cancel");
        assert!(has_stem(&w, "did not register"));
        assert!(has_stem(&w, "cancel"));
        assert!(!has_stem(&w, "regist er"));
        assert!(!has_stem(&words("Invalidate"), "validat"));
        assert!(has_stem(&words("Validate your address"), "validat"));
        assert!(!has_stem(&words("unverified"), "verif"));
        assert!(has_stem(&words("Sign in now"), "sign in"));
        assert!(!has_stem(&words("sign"), "sign in"));
        assert!(has_stem(&words("メールアドレスを確認"), "確認"));
    }
}
