//! How mail marks text someone else wrote (a personal note, a quoted earlier message), and
//! where its sentences end. Read by `inbox/extract/quoted.rs` and `link.rs`.

/// Words that open someone else's text: `Message from Alice:`, `Alice wrote:`.
pub(crate) const OPENERS: &[&str] = &[
    "message from",
    "a message from",
    "note from",
    "a note from",
    "comment from",
    "personal message",
    "personal note",
    "nachricht von",
    "message de",
    "mensaje de",
    "messaggio da",
    "mensagem de",
    "сообщение от",
];

/// Last words of a line that introduces a quotation: `On Mon, Alice <a@b> wrote:`.
pub(crate) const WROTE: &[&str] = &[
    "wrote",
    "writes",
    "says",
    "said",
    "schrieb",
    "écrit",
    "escribió",
    "scritto",
    "написал",
];

/// Lines after which everything is an earlier, quoted message.
pub(crate) const QUOTED_REST: &[&str] = &[
    "original message",
    "forwarded message",
    "begin forwarded message",
    "ursprüngliche nachricht",
    "message d'origine",
    "mensaje original",
];

/// Ends of sentences inside a line.
pub(crate) const SENTENCE_ENDS: &[&str] = &[". ", "! ", "? ", "。", "！", "？"];
