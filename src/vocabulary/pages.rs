//! How pages and plans word what a step looks for: the roles and places a step's `describe`
//! names, the phrases that name one action, the words of a submit button, of an email or
//! password field and of an error message, the class words that mark an error or good news,
//! the fields that ask for other codes, and the marks of content others posted (with the code words of [`super::codes`]). The
//! locator reads them (`browser/locator/`), as `browser/vocabulary.js`, which is generated
//! from this file: `PLANLOCK_BLESS=1 cargo test --lib vocabulary` writes it, and the same test
//! fails while it is stale. Words are matched lower-cased, whole (between non-letters).

/// Words of a step's `describe` that name its element's role, and the ARIA role they name
/// (`the Sign up button`, `the Email field`).
pub(crate) const ROLE_WORDS: &[(&str, &str)] = &[
    ("button", "button"),
    ("btn", "button"),
    ("submit", "button"),
    ("link", "link"),
    ("hyperlink", "link"),
    ("anchor", "link"),
    ("tab", "tab"),
    ("checkbox", "checkbox"),
    ("radio", "radio"),
    ("menuitem", "menuitem"),
    ("option", "option"),
    ("switch", "switch"),
    ("toggle", "switch"),
    ("dropdown", "combobox"),
    ("combobox", "combobox"),
    ("select", "combobox"),
    ("field", "textbox"),
    ("input", "textbox"),
    ("textbox", "textbox"),
];

/// Roles a describe names in two words, each read as the one word of [`ROLE_WORDS`] it
/// stands for: a regular expression (JavaScript's, over the lower-cased describe) and that
/// word (`radio button` is `radio`, `drop-down` is `dropdown`).
pub(crate) const ROLE_PHRASES: &[(&str, &str)] = &[
    (r"radio\s*button", "radio"),
    (r"menu\s*(item|entry|option)", "menuitem"),
    (r"(check|tick)\s*box", "checkbox"),
    (r"text\s*(box|field)", "textbox"),
    (r"drop\s*-?\s*down", "dropdown"),
];

/// Words after a role word that start saying where the element is (`the button in the
/// menu`): the role word before them wins.
pub(crate) const PLACE_WORDS: &[&str] = &[
    "in", "on", "of", "inside", "within", "under", "below", "above", "near", "next", "beside",
    "from", "at", "by",
];

/// Words of a describe that place its element in a landmark of the page, and the landmarks
/// they may mean, likeliest first (`the Sign up link in the menu`).
pub(crate) const PLACES: &[(&str, &[&str])] = &[
    ("menu", &["nav", "header"]),
    ("navigation", &["nav", "header"]),
    ("nav", &["nav", "header"]),
    ("navbar", &["nav", "header"]),
    ("header", &["header", "nav"]),
    ("footer", &["footer"]),
    ("sidebar", &["aside"]),
];

/// Phrases that name one action, whichever a site chose: a step's text that is one of a
/// group finds an element showing another of the same group, as a near miss.
pub(crate) const EQUIVALENT: &[&[&str]] = &[
    &[
        "sign up",
        "signup",
        "register",
        "create account",
        "create an account",
        "join",
        "get started",
    ],
    &["log in", "login", "sign in", "signin"],
    &["continue", "next"],
    &["submit", "send"],
    &["verify", "confirm", "activate"],
];

/// Words of a step's text or describe that say it submits what was just filled (`the Sign
/// up button`): such a step may click the form's one submit control when its text matches
/// nothing.
pub(crate) const SUBMIT_WORDS: &[&str] = &[
    "submit",
    "send",
    "sign up",
    "signup",
    "register",
    "create",
    "join",
    "get started",
    "continue",
    "next",
    "log in",
    "login",
    "sign in",
    "signin",
    "save",
    "request",
    "invite",
    "add",
    "confirm",
    "verify",
    "activate",
    "apply",
    "finish",
    "done",
    "subscribe",
    "reset",
    "update",
    "go",
];

/// Fields of a form that ask for some other code than the one mailed (an invitation, a
/// country, a captcha): never the one-time code's field. The code words and the other codes
/// themselves are the mail's ([`super::codes`]), written the same way (`^`: no letter before).
pub(crate) const OTHER_CODE_FIELDS: &[&str] = &["^invit", "^post code", "^country", "^captcha"];

/// Words of a describe that name an email field, for finding the form's one email control
/// when no label matches.
pub(crate) const EMAIL_FIELD_WORDS: &[&str] = &["email", "e-mail", "email address"];

/// Words of a describe that name a password field, likewise.
pub(crate) const PASSWORD_FIELD_WORDS: &[&str] = &["password", "passphrase", "passcode"];

/// Words that say something went wrong, in a message a page shows away from any field after
/// a form was sent (any case).
pub(crate) const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "invalid",
    "incorrect",
    "wrong",
    "required",
    "must",
    "match",
    "already",
    "taken",
    "exists",
    "failed",
    "not",
    "cannot",
    "can't",
    "too short",
    "too long",
    "please correct",
    "please enter",
    "please try",
    "please fix",
    "try again",
];

/// Words of an element's id or class (any case) that mark what is inside as content people
/// other than the site posted (a comment): it never decides a step.
pub(crate) const USER_CONTENT_MARKS: &[&str] = &["comment", "comments", "user-content", "ugc"];

/// Words that start a word of an element's class (any case; `errorlist`, `is-invalid`,
/// `text-danger`, `Mui-error`, `fs-error-msg`) and mark it as an error message: a form that came
/// back says an error there.
pub(crate) const ERROR_MARKS: &[&str] = &["error", "invalid", "danger", "fail", "warn", "wrong"];

/// Whole words of an element's class that mark its message as good news (`alert-success`,
/// `valid-feedback`, `alert-info`): no error, even as an alert (`role="alert"`).
pub(crate) const SUCCESS_MARKS: &[&str] = &["success", "valid", "info"];
