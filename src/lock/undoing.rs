//! What says that a link or a page undoes or destroys something: a fact the mail's reader and
//! the browser's hop rule find, and the runner words.

/// Why a link is never opened, or a hop of its navigation never loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undoing {
    /// An undoing word (`cancel`, `delete`, `not you`) where a reader sees it.
    Says { place: UndoingPlace, word: String },
    /// The message's `List-Unsubscribe` header names the link.
    ListUnsubscribe,
}

/// Where an undoing word stands, as a reader meets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UndoingPlace {
    /// The link's text (or its image's `alt`).
    Text,
    /// The sentence the link sits in, or the one that introduces a bare URL.
    Sentence,
    /// A question right before that sentence (`Not you?`).
    QuestionBefore,
    /// The line before a link that stands alone.
    LineBefore,
    /// The link's own address.
    Address,
    /// An address the link carries for afterwards (`/redir?to=/account/delete`), up to its
    /// query.
    LeadsTo(String),
}
