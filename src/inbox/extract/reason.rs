//! Why a link or a code ranked where it did, as facts the rankers note, and the one place
//! they are worded (the `chosen_by` of an inbox step's events).

use std::fmt;

use super::OtpSource;

/// Where in a mail a link's words stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The link's own text (an anchor's, a button's).
    Text,
    /// The sentence it stands in.
    Sentence,
    /// The line before a bare URL or a generic anchor.
    LineBefore,
    /// Its host and path.
    Address,
}

/// One fact a ranking read of a link or a code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    // Links.
    /// Words at `place` say what the link is for (`confirm`, `sign in`), as `stem`.
    Says { place: Place, stem: String },
    /// Words at `place` ask to open the link (`click`, `follow`), as `stem`.
    AsksToOpen { place: Place, stem: String },
    /// The step's `describe` words the link's words match.
    DescribeMatches { words: Vec<String> },
    /// The step's `describe` words to avoid that the link's words match.
    DescribeAvoids { words: Vec<String> },
    /// A bare URL whose sentence names a help or legal page.
    HelpPage,
    /// The sentence or paragraph around it sounds defensive (`if this wasn't you`).
    Defensive,
    /// Its query carries a token.
    Token,
    /// Its host is `auth.`, `login.` or `accounts.`.
    AccountsHost,
    /// It is laid out as a button.
    Button,
    /// Its path or query carries an opaque token.
    OpaqueToken,
    /// It leads to a site's home page.
    HomePage,
    /// A schema.org action in the mail's JSON-LD names it.
    JsonLdAction,
    // Codes.
    /// A code word stands `distance` characters before it.
    CodeWordBefore { distance: usize },
    /// A code word stands `distance` characters after it, in the same sentence.
    CodeWordAfter { distance: usize },
    /// The line before it says it is a code.
    LineBeforeSaysCode,
    /// The line after it says it is a code.
    LineAfterSaysCode,
    /// The line before says code and ends with a colon.
    IntroducedAsCode,
    /// The line before ends with a colon, without a code word.
    Introduced,
    /// Its line holds only its label and the code.
    LabelledLine,
    /// It stands on a line of its own.
    SetApart,
    /// It stands alone in a bold, big or monospace element.
    Prominent,
    /// Six digits.
    SixDigits,
    /// Groups joined by a separator.
    Separator,
    /// It is inside a quoted part or someone else's note.
    Quoted,
    /// The part of the message it was found in.
    FoundIn(OtpSource),
    /// A label ending in a colon introduces the code, alone on its line.
    Labelled { label: String },
    /// Nothing else in the mail has the shape of a code, so the value is taken as shown.
    TakenAsShown,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Place::Text => "its text",
            Place::Sentence => "its sentence",
            Place::LineBefore => "the line before it",
            Place::Address => "its address",
        })
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Says { place, stem } => write!(f, "{place} says \"{stem}\""),
            Reason::AsksToOpen { place, stem } => write!(f, "{place} asks to open it (\"{stem}\")"),
            Reason::DescribeMatches { words } => {
                write!(f, "the step's describe matches \"{}\"", words.join(" "))
            }
            Reason::DescribeAvoids { words } => {
                write!(
                    f,
                    "the step's describe names \"{}\" to avoid",
                    words.join(" ")
                )
            }
            Reason::HelpPage => f.write_str("its sentence names a help or legal page"),
            Reason::Defensive => f.write_str("its sentence sounds defensive"),
            Reason::Token => f.write_str("it carries a token"),
            Reason::AccountsHost => f.write_str("its host is an accounts host"),
            Reason::Button => f.write_str("it is a button"),
            Reason::OpaqueToken => f.write_str("it carries an opaque token"),
            Reason::HomePage => f.write_str("it is a home page"),
            Reason::JsonLdAction => f.write_str("the mail's JSON-LD action names it"),
            Reason::CodeWordBefore { distance } => {
                write!(f, "a code word {distance} characters before it")
            }
            Reason::CodeWordAfter { distance } => {
                write!(f, "a code word {distance} characters after it")
            }
            Reason::LineBeforeSaysCode => f.write_str("the line before it says it is a code"),
            Reason::LineAfterSaysCode => f.write_str("the line after it says it is a code"),
            Reason::IntroducedAsCode => f.write_str("the line before it introduces it as a code"),
            Reason::Introduced => f.write_str("the line before it introduces it"),
            Reason::LabelledLine => f.write_str("its line holds only its label and the code"),
            Reason::SetApart => f.write_str("set apart on its own line"),
            Reason::Prominent => f.write_str("in a prominent element (bold, big or monospace)"),
            Reason::SixDigits => f.write_str("six digits"),
            Reason::Separator => f.write_str("its groups joined by a separator"),
            Reason::Quoted => {
                f.write_str("inside a quoted part or someone else's note (ranked last)")
            }
            Reason::FoundIn(OtpSource::Subject) => f.write_str("in the subject"),
            Reason::FoundIn(OtpSource::Text) => f.write_str("in the text part"),
            Reason::FoundIn(OtpSource::Html) => f.write_str("in the HTML part"),
            Reason::Labelled { label } => {
                write!(f, "the label \"{label}\" introduces it on its own line")
            }
            Reason::TakenAsShown => {
                f.write_str("taken as shown: nothing else in the mail has the shape of a code")
            }
        }
    }
}

/// The reasons as the words a step's `chosen_by` holds.
pub fn worded(reasons: &[Reason]) -> Vec<String> {
    reasons.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words events have always carried, one per kind of fact.
    #[test]
    fn reasons_are_worded_as_events_carry_them() {
        let said: Vec<String> = worded(&[
            Reason::Says {
                place: Place::Address,
                stem: "login".into(),
            },
            Reason::AsksToOpen {
                place: Place::LineBefore,
                stem: "click".into(),
            },
            Reason::DescribeMatches {
                words: vec!["set".into(), "password".into()],
            },
            Reason::CodeWordBefore { distance: 2 },
            Reason::FoundIn(OtpSource::Text),
        ]);
        assert_eq!(
            said,
            [
                "its address says \"login\"",
                "the line before it asks to open it (\"click\")",
                "the step's describe matches \"set password\"",
                "a code word 2 characters before it",
                "in the text part",
            ]
        );
    }
}
