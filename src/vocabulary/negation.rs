//! A step's `describe` read as a sentence: what it asks for, and what a negation in it names
//! to avoid ("the link to confirm the address, not the link to cancel it", "rather than
//! unsubscribe", "instead of the delete link", "never the X"). The one reader of negation:
//! the validator, the mail's link ranking, the review and the locator all read a describe
//! through it, so that words under a negation are excluded everywhere alike.

use std::ops::Range;

use super::links::DESTRUCTIVE_STEMS;
use super::words::{placed_words, stem_matches, undoing_where};

/// Words and phrases that start naming what to avoid, matched as whole words (lower-cased,
/// apostrophes dropped: `don't` is `dont`). One that is part of an undoing phrase (`did not
/// request`, `not you`) is that phrase, not a negation.
pub(crate) const NEGATIONS: &[&str] = &[
    "not",
    "never",
    "rather than",
    "instead of",
    "other than",
    "except",
    "excluding",
    "avoid",
    "avoiding",
    "without",
    "neither",
    "nor",
    "dont",
    "doesnt",
    "isnt",
    "arent",
];

/// Words that end a negation's reach and go back to what is wanted (`not the cancel link but
/// the confirm link`).
pub(crate) const CONTRASTS: &[&str] = &["but"];

/// Characters that end a sentence or a clause set apart: a negation reaches no further. A
/// full stop, `!` or `?` ends one only before a space or the end (`example.com` goes on).
const SENTENCE_ENDS: &[char] = &['.', ';', '!', '?', '—', '–'];

/// Whether the character at byte `at` of `text` ends a sentence.
fn ends_sentence(text: &str, at: usize) -> bool {
    let mut rest = text[at..].chars();
    match rest.next() {
        Some('.' | '!' | '?') => rest.next().is_none_or(char::is_whitespace),
        Some(c) => SENTENCE_ENDS.contains(&c),
        None => false,
    }
}

/// A describe, read: its text and the parts of it that name what to avoid.
#[derive(Debug, Clone)]
pub(crate) struct Reading<'a> {
    text: &'a str,
    words: Vec<(String, Range<usize>)>,
    /// Byte ranges of `text`, each from a negation to where its reach ends.
    avoided: Vec<Range<usize>>,
    /// Indexes of the words that are negations themselves (`not`, `rather than`).
    negations: Vec<usize>,
}

impl<'a> Reading<'a> {
    /// Reads `text`. A negation reaches to the end of its sentence, to a contrasting `but`, to a
    /// closing parenthesis it stands inside, and, when it opens its sentence ("Rather than
    /// unsubscribing, …"), to the first comma.
    pub(crate) fn of(text: &'a str) -> Reading<'a> {
        let words = placed_words(text);
        let ws: Vec<String> = words.iter().map(|(w, _)| w.clone()).collect();
        // Words an undoing phrase holds ("did not request", "not you"): no negation there.
        let mut phrase = vec![false; ws.len()];
        for stem in DESTRUCTIVE_STEMS {
            for (i, n) in stem_matches(&ws, stem) {
                phrase[i..i + n].iter_mut().for_each(|p| *p = true);
            }
        }
        let mut avoided: Vec<Range<usize>> = Vec::new();
        let mut negations = Vec::new();
        let mut i = 0;
        while i < ws.len() {
            let within = avoided.last().is_some_and(|r| r.end > words[i].1.start);
            let marker = (!within && !phrase[i])
                .then(|| {
                    NEGATIONS.iter().find_map(|n| {
                        let parts: Vec<&str> = n.split(' ').collect();
                        let fits = ws.len() >= i + parts.len()
                            && parts.iter().zip(&ws[i..]).all(|(p, w)| p == w);
                        fits.then_some(parts.len())
                    })
                })
                .flatten();
            let Some(n) = marker else {
                i += 1;
                continue;
            };
            let start = words[i].1.start;
            let after = words[i + n - 1].1.end;
            let end = reach(text, &words, i + n, start, after);
            negations.extend(i..i + n);
            avoided.push(start..end);
            i += n;
        }
        Reading {
            text,
            words,
            avoided,
            negations,
        }
    }

    /// Whether word `i` stands under a negation (the negation itself included).
    fn avoided_at(&self, i: usize) -> bool {
        let at = self.words[i].1.start;
        self.avoided.iter().any(|r| r.contains(&at))
    }

    /// Whether the describe names anything to avoid.
    #[cfg(test)]
    pub(crate) fn negates(&self) -> bool {
        !self.avoided.is_empty()
    }

    /// The describe with what it names to avoid left out ("the confirm link, not the cancel
    /// link" → "the confirm link, ").
    pub(crate) fn wanted(&self) -> String {
        let mut out = String::new();
        let mut from = 0;
        for r in &self.avoided {
            out.push_str(&self.text[from..r.start]);
            out.push(' ');
            from = r.end;
        }
        out.push_str(&self.text[from..]);
        out
    }

    /// The words of what is asked for.
    pub(crate) fn wanted_words(&self) -> Vec<String> {
        (0..self.words.len())
            .filter(|&i| !self.avoided_at(i))
            .map(|i| self.words[i].0.clone())
            .collect()
    }

    /// The words a negation names to avoid (the negations themselves left out).
    pub(crate) fn avoided_words(&self) -> Vec<String> {
        (0..self.words.len())
            .filter(|&i| self.avoided_at(i) && !self.negations.contains(&i))
            .map(|i| self.words[i].0.clone())
            .collect()
    }

    /// The words that ask for something undoing or destructive, outside what the describe
    /// names to avoid: "the cancel link" asks for one; "not the cancel link" does not.
    pub(crate) fn undoing(&self) -> Option<String> {
        let ws: Vec<String> = self.words.iter().map(|(w, _)| w.clone()).collect();
        undoing_where(&ws, |i| !self.avoided_at(i))
    }
}

/// Where the reach of a negation that starts at byte `start` ends; its words end at `after`
/// and the words after it start at index `next`.
fn reach(
    text: &str,
    words: &[(String, Range<usize>)],
    next: usize,
    start: usize,
    after: usize,
) -> usize {
    let before = &text[..start];
    // The sentence it stands in starts after the last sentence end before it.
    let sentence = before
        .char_indices()
        .rev()
        .find(|&(i, _)| ends_sentence(text, i))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let lead = &text[sentence..start];
    // Inside a parenthesis it reaches to its close; opening its sentence (or a parenthesis), to
    // the first comma.
    let open = lead.matches('(').count() > lead.matches(')').count();
    let fronted = lead
        .rsplit('(')
        .next()
        .unwrap_or(lead)
        .chars()
        .all(|c| !c.is_alphanumeric());
    let mut end = text.len();
    for (i, c) in text[after..].char_indices() {
        let at = after + i;
        if ends_sentence(text, at) || (open && c == ')') || (fronted && c == ',') {
            end = at;
            break;
        }
    }
    // A contrasting word goes back to what is wanted.
    if let Some((_, r)) = words[next.min(words.len())..]
        .iter()
        .find(|(w, r)| r.start < end && CONTRASTS.contains(&w.as_str()))
    {
        end = r.start;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn avoided(text: &str) -> Vec<String> {
        Reading::of(text).avoided_words()
    }

    #[test]
    fn a_negation_names_what_to_avoid_to_the_end_of_its_sentence() {
        let text = "the link to confirm the email address (Special:ConfirmEmail), not the link to \
                    cancel or invalidate it";
        let r = Reading::of(text);
        assert_eq!(
            r.avoided_words(),
            ["the", "link", "to", "cancel", "or", "invalidate", "it"]
        );
        assert_eq!(
            r.wanted(),
            "the link to confirm the email address (Special:ConfirmEmail),  "
        );
        assert_eq!(r.undoing(), None);
        assert!(r.wanted_words().contains(&"confirm".to_string()));
        // Without the negation it asks for the undoing link.
        assert_eq!(
            Reading::of("the link to cancel or invalidate it").undoing(),
            Some("cancel".into())
        );
    }

    #[test]
    fn each_way_of_saying_it_is_read() {
        assert_eq!(
            avoided("the confirm link rather than unsubscribe"),
            ["unsubscribe"]
        );
        assert_eq!(
            avoided("the confirm link instead of the delete link"),
            ["the", "delete", "link"]
        );
        assert_eq!(avoided("never the remove link"), ["the", "remove", "link"]);
        assert_eq!(
            avoided("the Save button, not the Delete one"),
            ["the", "delete", "one"]
        );
        assert_eq!(
            avoided("Don't open the cancel link"),
            ["open", "the", "cancel", "link"]
        );
    }

    #[test]
    fn its_reach_ends_at_a_contrast_a_parenthesis_or_a_fronted_comma() {
        let r = Reading::of("not the cancel link but the confirm link");
        assert_eq!(r.avoided_words(), ["the", "cancel", "link"]);
        assert!(r.wanted_words().contains(&"confirm".to_string()));
        let r = Reading::of("the confirm link (not the cancel one) from the welcome mail");
        assert_eq!(r.avoided_words(), ["the", "cancel", "one"]);
        assert!(r.wanted_words().contains(&"welcome".to_string()));
        let r = Reading::of("Rather than unsubscribing, open the confirm link");
        assert_eq!(r.avoided_words(), ["unsubscribing"]);
        assert!(r.wanted_words().contains(&"confirm".to_string()));
        // Not fronted: a list after the negation stays under it.
        assert_eq!(
            avoided("the confirm link, not the cancel, remove or delete link"),
            ["the", "cancel", "remove", "or", "delete", "link"]
        );
        let r = Reading::of("Never the delete link. Open the confirm link.");
        assert_eq!(r.avoided_words(), ["the", "delete", "link"]);
    }

    #[test]
    fn an_undoing_phrase_that_holds_a_negation_is_that_phrase() {
        for text in [
            "the link for if you did not request this",
            "the \"Not you?\" link",
            "the link saying it wasn't me",
        ] {
            let r = Reading::of(text);
            assert!(!r.negates(), "{text}: {r:?}");
            assert!(r.undoing().is_some(), "{text}");
        }
        // Under another negation, it is avoided too.
        assert_eq!(
            Reading::of("never the link for if you did not request it").undoing(),
            None
        );
    }

    #[test]
    fn a_describe_without_negation_is_all_wanted() {
        let r = Reading::of("the Sign up button in the menu");
        assert!(!r.negates());
        assert_eq!(r.wanted(), "the Sign up button in the menu");
        assert!(r.avoided_words().is_empty());
        // Words that only contain a negation's letters are none: "cannot", "nothing", "notice".
        assert!(!Reading::of("the notice link; nothing cannot be said").negates());
    }
}
