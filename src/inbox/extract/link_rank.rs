//! Judging one link the way a person reads it: by its anchor, the sentence around or before
//! it and its path, words matched as words; a link that undoes or destroys is refused, and
//! every point of the score is recorded as a reason.

use url::Url;

use super::Link;
use super::link_words::{Intent, contains_word, intent};
use super::ranking::{Rule, rule};
use super::wrapper::{is_http, unwrap_url};
use crate::lock::{Undoing, UndoingPlace};
use crate::vocabulary::links::{
    ACTION_KEYS, BAD_ANCHORS, BAD_URL_PARTS, BAD_URL_WORDS, CARRIER_KEYS, CONTEXT_NEG,
    DESCRIBE_STOPWORDS, IMAGE_EXTS, INVITING_STEMS, SOCIAL_HOSTS, TOKEN_KEYS, WEAK_ANCHORS,
};
use crate::vocabulary::negation::Reading;
use crate::vocabulary::words::{first_stem, undoing, undoing_address, words};

/// One place a link is shown in a message, with the words a reader sees around it.
#[derive(Debug, Clone, Default)]
pub(super) struct Occurrence {
    pub(super) href: String,
    /// The anchor's text (or its image's `alt`); `None` for a bare URL.
    pub(super) anchor: Option<String>,
    /// The sentence the link sits in (an inline anchor), or the one that introduces a bare URL
    /// (`To set your password, visit the following address:`).
    pub(super) sentence: String,
    /// A bare URL's sentence whole, as its recorded text says it (`sentence` is the end of it
    /// the ranking reads).
    pub(super) said: String,
    /// The line before a link that stands alone (a button, a link on its own line).
    pub(super) intro: String,
    /// A question right before the sentence (`Not you?`), which says what the link is for.
    pub(super) lead: String,
    /// The whole paragraph or line the link sits in (`If you did not sign in, your password
    /// may be compromised. Visit …`).
    pub(super) paragraph: String,
    pub(super) button: bool,
    pub(super) quoted: bool,
}

/// A link as judged: the [`Link`] it would be if chosen, and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedLink {
    pub link: Link,
    /// Inside a quotation or a note another user typed: ranks below the mail's own text.
    pub quoted: bool,
    /// Why it is never chosen (it undoes or destroys something), if so.
    pub refused: Option<Undoing>,
}

/// The rules links are ranked by, in order; a rule is a row.
pub(super) const LINK_RULES: [Rule<RankedLink>; 3] = [
    // A link that undoes something is never chosen: it stays, last, to say why nothing was.
    rule("never_undoes", |l| l.refused.is_none() as i64),
    // The mail's own text before a quotation or a note another user typed.
    rule("own_text", |l| !l.quoted as i64),
    // What its words say, weighed by where they stand, and how it looks ([`rank`]'s weights).
    rule("words", |l| l.link.score as i64),
];

/// Points for words that say a link does what was asked, by where they stand.
struct Placed {
    text: i32,
    sentence: i32,
    line_before: i32,
    address: i32,
}

/// Words that say the link verifies, confirms or activates (`verify`, `bestätigen`).
const CONFIRM_WORDS: Placed = Placed {
    text: 40,
    sentence: 30,
    line_before: 24,
    address: 20,
};
/// Words that say it signs in, sets a password or accepts an invitation: a little weaker.
const SIGN_IN_WORDS: Placed = Placed {
    text: 30,
    sentence: 22,
    line_before: 16,
    address: 14,
};
/// Its sentence asks to open it (`follow the link below`).
const INVITED_BY_SENTENCE: i32 = 15;
/// The line before it asks to open it (`visit the following address:`).
const INVITED_BY_LINE_BEFORE: i32 = 10;
/// Each word of the step's `describe` found in the link's words.
const DESCRIBED_WORD: i32 = 25;
/// Each word the step's `describe` names to avoid ("not the resend link") found in them.
const AVOIDED_WORD: i32 = -25;
/// A bare URL whose sentence names a help or legal page.
const HELP_PAGE_SENTENCE: i32 = -15;
/// Its sentence, the question before it or its paragraph sounds defensive (`did not request`).
const DEFENSIVE: i32 = -45;
/// It carries a token (`?token=`, `?code=`).
const TOKEN: i32 = 12;
/// Its host is an accounts host (`auth.`, `login.`, `accounts.`).
const ACCOUNTS_HOST: i32 = 5;
/// It is a button.
const BUTTON: i32 = 8;
/// It carries a long opaque value, as tokens are.
const OPAQUE_TOKEN: i32 = 6;
/// It is a site's home page, which verifies nothing.
const HOME_PAGE: i32 = -30;
/// The mail's JSON-LD action names it (a sender's own word for the link to follow).
pub(super) const DECLARED: i32 = 40;

/// The content words of a step's `describe`, read as a sentence: those it asks for, and those
/// a negation in it names to avoid ("not the link to cancel it"), none of them in both.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Described {
    pub(super) wanted: Vec<String>,
    pub(super) avoided: Vec<String>,
}

/// The [`Described`] words of a step's `describe`.
pub(super) fn describe_words(describe: Option<&str>) -> Described {
    let reading = Reading::of(describe.unwrap_or_default());
    let content = |ws: Vec<String>, skip: &[String]| {
        let mut out: Vec<String> = Vec::new();
        for w in ws {
            if !DESCRIBE_STOPWORDS.contains(&w.as_str()) && !out.contains(&w) && !skip.contains(&w)
            {
                out.push(w);
            }
        }
        out
    };
    let wanted = content(reading.wanted_words(), &[]);
    let avoided = content(reading.avoided_words(), &wanted);
    Described { wanted, avoided }
}

/// Whether a describe word and a word of the mail are the same word, give or take an ending
/// (`verify` ~ `verification`, `invitation` ~ `invite`; `set` is not `settings`).
fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    common >= 5 && common + 3 >= la.min(lb)
}

fn is_generic(text: &str) -> bool {
    let t = text.trim().trim_matches(|c: char| !c.is_alphanumeric());
    let t = t.to_lowercase();
    t.is_empty()
        || t.starts_with("http")
        || t.starts_with("www.")
        || WEAK_ANCHORS.contains(&t.as_str())
        || (t.len() <= 24 && WEAK_ANCHORS.iter().any(|w| contains_word(&t, w)))
}

fn has_opaque_token(u: &Url) -> bool {
    let long = |s: &str| {
        s.len() >= 16
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.~%".contains(c))
    };
    u.path_segments().is_some_and(|mut segs| segs.any(long))
        || u.query_pairs().any(|(_, v)| long(&v))
}

/// The words of a URL a person reads as saying what it does: its host and path, and the value
/// of an action parameter (`?action=confirm`). Other query keys and values are data
/// (`login=bob` does not make a log-in link).
fn url_words(url: &Url) -> Vec<String> {
    let mut text = format!("{} {}", url.host_str().unwrap_or_default(), url.path());
    for (k, v) in url.query_pairs() {
        if ACTION_KEYS.contains(&k.to_ascii_lowercase().as_str()) {
            text.push(' ');
            text.push_str(&v);
        }
    }
    // `Special:ConfirmEmail`, `%3A`: decode what a path may percent-encode
    let text = unpercent(&text);
    words(&text)
}

/// The addresses a link carries for afterwards, decoded and resolved against it: the value
/// of a parameter like `to`, `next` or `redirect` ([`CARRIER_KEYS`]), any other value that
/// is itself a URL or an absolute path, and an app route in the fragment (`#/account`); then
/// those they carry in turn. A redirector sends the reader there, so the link is judged by
/// them too.
pub(super) fn carried_targets(url: &Url) -> Vec<Url> {
    const MAX: usize = 16;
    let mut found: Vec<Url> = Vec::new();
    let mut next = vec![url.clone()];
    for _depth in 0..3 {
        let mut deeper = Vec::new();
        for u in &next {
            let mut values: Vec<(bool, String)> = u
                .query_pairs()
                .map(|(k, v)| {
                    let named = CARRIER_KEYS.contains(&k.to_ascii_lowercase().as_str());
                    (named, v.trim().to_string())
                })
                .collect();
            if let Some(route) = u.fragment().and_then(|f| f.strip_prefix('!').or(Some(f)))
                && route.starts_with('/')
            {
                values.push((true, route.to_string()));
            }
            for (named, mut value) in values {
                // Encoded more than once (`%252Faccount`): undo what the query left.
                for _ in 0..3 {
                    if !value.contains('%') || looks_like_address(&value) {
                        break;
                    }
                    value = unpercent(&value);
                }
                if value.is_empty() || !(named || looks_like_address(&value)) {
                    continue;
                }
                if let Ok(target) = u.join(&value)
                    && is_http(&target)
                    && target != *u
                    && !found.contains(&target)
                {
                    found.push(target.clone());
                    deeper.push(target);
                }
            }
        }
        if deeper.is_empty() || found.len() >= MAX {
            break;
        }
        next = deeper;
    }
    found.truncate(MAX);
    found
}

/// A URL or an absolute path (`https://…`, `/account/delete`).
fn looks_like_address(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with('/') || lower.starts_with("https://") || lower.starts_with("http://")
}

/// What says that opening `url` undoes or destroys something: its own address, or an
/// address it carries for afterwards ([`carried_targets`]). The rule the runner applies to
/// every hop of the navigation an emailed link starts.
pub(crate) fn undoing_destination(url: &Url) -> Option<Undoing> {
    if let Some(word) = undoing_address(&url_words(url)) {
        return Some(Undoing::Says {
            place: UndoingPlace::Address,
            word,
        });
    }
    carried_targets(url).iter().find_map(|target| {
        undoing_address(&url_words(target)).map(|word| Undoing::Says {
            place: UndoingPlace::LeadsTo(target[..url::Position::AfterQuery].to_string()),
            word,
        })
    })
}

/// `%3A` → `:`; invalid escapes stay as they are.
fn unpercent(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Judges one occurrence, or `None` when it is no candidate at all (not http(s), an image, a
/// social or legal page, an unsubscribe or privacy link, or nothing marks it).
pub(super) fn rank(occ: &Occurrence, describe: &Described) -> Option<RankedLink> {
    let parsed = Url::parse(occ.href.trim()).ok()?;
    if !is_http(&parsed) {
        return None;
    }
    let url = unwrap_url(parsed);
    let host = url.host_str()?.to_ascii_lowercase();
    if SOCIAL_HOSTS
        .iter()
        .any(|s| host == *s || host.ends_with(&format!(".{s}")))
    {
        return None;
    }
    let path = url.path().to_ascii_lowercase();
    if IMAGE_EXTS.iter().any(|e| path.ends_with(e)) {
        return None;
    }
    let full = url.as_str().to_ascii_lowercase();
    let host_path = format!("{host}{path}");
    let token = url
        .query_pairs()
        .any(|(k, _)| TOKEN_KEYS.contains(&k.to_ascii_lowercase().as_str()));
    let opaque = has_opaque_token(&url);
    // a help or legal page; a path word like `support` does not make a page that carries a
    // token one (an issue tracker named "support")
    let bad_url = BAD_URL_PARTS.iter().any(|p| full.contains(p))
        || (!token
            && !opaque
            && host_path
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| BAD_URL_WORDS.contains(&w)));
    let anchor = occ.anchor.as_deref().map(str::trim).unwrap_or_default();
    let anchor_l = anchor.to_lowercase();
    let bad_text = |t: &str| BAD_ANCHORS.iter().any(|b| contains_word(t, b));
    if bad_url || (occ.anchor.is_some() && bad_text(&anchor_l)) {
        return None;
    }
    let generic = occ.anchor.is_none() || is_generic(anchor);
    let anchor_ws = if generic { Vec::new() } else { words(anchor) };
    let sentence_ws = words(&occ.sentence);
    let intro_ws = if generic {
        words(&occ.intro)
    } else {
        Vec::new()
    };
    // a button or link with its own words, standing alone, speaks for itself: the question
    // ending the paragraph above it (`Didn't sign up? Just ignore this email.`) is not its
    let standalone_labelled = occ.anchor.is_some() && !generic && occ.sentence.is_empty();
    let lead_ws = if standalone_labelled {
        Vec::new()
    } else {
        words(&occ.lead)
    };
    let path_ws = url_words(&url);

    let mut t = Tally::default();
    for (ws, place, strong, login) in [
        (
            &anchor_ws,
            "its text",
            CONFIRM_WORDS.text,
            SIGN_IN_WORDS.text,
        ),
        (
            &sentence_ws,
            "its sentence",
            CONFIRM_WORDS.sentence,
            SIGN_IN_WORDS.sentence,
        ),
        (
            &intro_ws,
            "the line before it",
            CONFIRM_WORDS.line_before,
            SIGN_IN_WORDS.line_before,
        ),
        (
            &path_ws,
            "its address",
            CONFIRM_WORDS.address,
            SIGN_IN_WORDS.address,
        ),
    ] {
        match intent(ws) {
            Some((Intent::Confirm, stem)) => t.add(strong, format!("{place} says \"{stem}\"")),
            Some((Intent::SignIn, stem)) => t.add(login, format!("{place} says \"{stem}\"")),
            None => {}
        }
    }
    for (ws, place, points) in [
        (&sentence_ws, "its sentence", INVITED_BY_SENTENCE),
        (&intro_ws, "the line before it", INVITED_BY_LINE_BEFORE),
    ] {
        if let Some(stem) = first_stem(ws, INVITING_STEMS) {
            t.add(points, format!("{place} asks to open it (\"{stem}\")"));
        }
    }
    let says = |d: &String| {
        [&anchor_ws, &sentence_ws, &intro_ws, &path_ws]
            .iter()
            .any(|ws| ws.iter().any(|w| same_word(d, w)))
    };
    let described: Vec<String> = describe
        .wanted
        .iter()
        .filter(|d| says(d))
        .cloned()
        .collect();
    if !described.is_empty() {
        t.add(
            DESCRIBED_WORD * described.len() as i32,
            format!("the step's describe matches \"{}\"", described.join(" ")),
        );
    }
    let avoided: Vec<&String> = describe.avoided.iter().filter(|d| says(d)).collect();
    if !avoided.is_empty() {
        let words: Vec<&str> = avoided.iter().map(|w| w.as_str()).collect();
        t.add(
            AVOIDED_WORD * avoided.len() as i32,
            format!("the step's describe names \"{}\" to avoid", words.join(" ")),
        );
    }
    if occ.anchor.is_none() && bad_text(&occ.sentence.to_lowercase()) {
        t.add(
            HELP_PAGE_SENTENCE,
            "its sentence names a help or legal page".into(),
        );
    }
    let paragraph_ws = words(&occ.paragraph);
    if [&sentence_ws, &lead_ws, &intro_ws, &paragraph_ws]
        .iter()
        .any(|ws| first_stem(ws, CONTEXT_NEG).is_some())
    {
        t.add(DEFENSIVE, "its sentence sounds defensive".into());
    }
    let refused = [
        (&anchor_ws, UndoingPlace::Text),
        (&sentence_ws, UndoingPlace::Sentence),
        (&lead_ws, UndoingPlace::QuestionBefore),
        (&intro_ws, UndoingPlace::LineBefore),
        (&path_ws, UndoingPlace::Address),
    ]
    .into_iter()
    .find_map(|(ws, place)| undoing(ws).map(|word| Undoing::Says { place, word }))
    .or_else(|| undoing_destination(&url));
    // only the words make a link a candidate; what it carries and how it looks rank it. A
    // link that undoes something stays, refused, so that a mail with nothing else says so.
    if t.score <= 0 && (refused.is_none() || t.marked <= 0) {
        return None;
    }
    if token {
        t.add(TOKEN, "it carries a token".into());
    }
    if host.starts_with("auth.") || host.starts_with("login.") || host.starts_with("accounts.") {
        t.add(ACCOUNTS_HOST, "its host is an accounts host".into());
    }
    if occ.button {
        t.add(BUTTON, "it is a button".into());
    }
    if opaque {
        t.add(OPAQUE_TOKEN, "it carries an opaque token".into());
    }
    if (path.is_empty() || path == "/") && url.query().is_none() {
        t.add(HOME_PAGE, "it is a home page".into());
    }
    if t.score <= 0 && refused.is_none() {
        return None;
    }
    let anchor_text = if generic && occ.anchor.is_none() {
        if occ.said.is_empty() {
            &occ.sentence
        } else {
            &occ.said
        }
        .trim()
        .to_string()
    } else {
        anchor.to_string()
    };
    Some(RankedLink {
        link: Link {
            url,
            anchor_text,
            score: t.score.max(1),
            reasons: t.reasons,
            described,
            decided_by: None,
        },
        quoted: occ.quoted,
        refused,
    })
}

/// A link's score as it is built, with one reason per change.
#[derive(Default)]
struct Tally {
    score: i32,
    /// The sum of the points its words earned, penalties left out.
    marked: i32,
    reasons: Vec<String>,
}

impl Tally {
    fn add(&mut self, points: i32, reason: String) {
        self.score += points;
        if points > 0 {
            self.marked += points;
        }
        self.reasons.push(reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare(href: &str, sentence: &str) -> Occurrence {
        Occurrence {
            href: href.into(),
            sentence: sentence.into(),
            ..Occurrence::default()
        }
    }

    #[test]
    fn invalidate_is_not_validate_and_is_refused() {
        let r = rank(
            &bare(
                "https://wiki.test/Special:InvalidateEmail/abc123",
                "If you did *not* register the account, follow this link to cancel the email address confirmation:",
            ),
            &Described::default(),
        )
        .unwrap();
        assert!(r.refused.is_some(), "{r:?}");
        let r = rank(
            &bare(
                "https://wiki.test/Special:ConfirmEmail/abc123",
                "open this link in your browser:",
            ),
            &Described::default(),
        )
        .unwrap();
        assert_eq!(r.refused, None);
    }

    #[test]
    fn a_login_parameter_is_not_a_log_in_link() {
        let with_param = rank(
            &bare("https://blog.test/reset?key=abc&login=bob", ""),
            &Described::default(),
        );
        assert!(with_param.is_none_or(|r| !r.link.reasons.iter().any(|x| x.contains("login"))));
    }

    #[test]
    fn a_link_is_judged_by_the_address_it_carries() {
        let verify = |href: &str| Occurrence {
            href: href.into(),
            anchor: Some("Verify your email".into()),
            button: true,
            ..Occurrence::default()
        };
        let leads_to = |to: &str, word: &str| Undoing::Says {
            place: UndoingPlace::LeadsTo(to.into()),
            word: word.into(),
        };
        for (href, said) in [
            (
                "https://shop.test/redir?to=/account/delete%3Fconfirm%3D1",
                leads_to("https://shop.test/account/delete?confirm=1", "delete"),
            ),
            (
                "https://shop.test/redir?to=%2Faccount%2Fclose",
                leads_to("https://shop.test/account/close", "close"),
            ),
            (
                "https://shop.test/go?x=%252Faccount%252Fdelete",
                leads_to("https://shop.test/account/delete", "delete"),
            ),
            (
                "https://shop.test/r?next=https%3A%2F%2Fshop.test%2Fl%3Fu%3D%2Fteam%2Fremove",
                leads_to("https://shop.test/team/remove", "remove"),
            ),
            (
                "https://shop.test/redir?continue=settings/delete-account",
                leads_to("https://shop.test/settings/delete-account", "delete"),
            ),
            (
                "https://app.shop.test/#/account/delete",
                leads_to("https://app.shop.test/account/delete", "delete"),
            ),
        ] {
            let r = rank(&verify(href), &Described::default()).unwrap();
            assert_eq!(r.refused, Some(said), "{href}: {r:?}");
        }
        for href in [
            "https://shop.test/verify?token=abc&next=%2Fwelcome",
            "https://shop.test/verify?token=abc&redirect=https%3A%2F%2Fshop.test%2Fdashboard",
            "https://shop.test/verify?token=abc&lang=en",
        ] {
            let r = rank(&verify(href), &Described::default()).unwrap();
            assert_eq!(r.refused, None, "{href}");
        }
        assert_eq!(
            undoing_destination(&Url::parse("https://shop.test/account/delete?confirm=1").unwrap()),
            Some(Undoing::Says {
                place: UndoingPlace::Address,
                word: "delete".into()
            })
        );
        assert_eq!(
            undoing_destination(&Url::parse("https://shop.test/welcome?next=/").unwrap()),
            None
        );
    }

    #[test]
    fn describe_words_rank_and_are_recorded() {
        let d = describe_words(Some("the link to set a password"));
        assert_eq!(d.wanted, ["set", "password"]);
        assert!(d.avoided.is_empty());
        let r = rank(
            &bare(
                "https://blog.test/x?key=abc",
                "To set your password, visit:",
            ),
            &d,
        )
        .unwrap();
        assert_eq!(r.link.described, ["set", "password"]);
        assert!(same_word("verify", "verification"));
        assert!(same_word("invitation", "invite"));
        assert!(!same_word("set", "settings"));
        assert!(!same_word("reset", "resend"));
    }
}
