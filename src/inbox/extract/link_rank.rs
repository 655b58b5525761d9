//! Judging one link the way a person reads it: by its anchor, the sentence around or before
//! it and its path, words matched as words; a link that undoes or destroys is refused, and
//! every point of the score is recorded as a reason.

use url::Url;

use super::Link;
use super::link_words::{Intent, contains_word, intent};
use super::ranking::{Rule, rule};
use super::reason::{Place, Reason};
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
    let address = Address::read(occ)?;
    let anchor = occ.anchor.as_deref().map(str::trim).unwrap_or_default();
    let generic = occ.anchor.is_none() || is_generic(anchor);
    let ws = LinkWords::read(occ, generic, &address.url);
    let mut score = LinkScore::default();
    let described = weigh_words(&mut score, &ws, occ, describe);
    let refused = refusal(&ws, &address.url);
    // only the words make a link a candidate; what it carries and how it looks rank it. A
    // link that undoes something stays, refused, so that a mail with nothing else says so.
    if score.score <= 0 && (refused.is_none() || score.marked <= 0) {
        return None;
    }
    weigh_address(&mut score, &address, occ.button);
    if score.score <= 0 && refused.is_none() {
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
            url: address.url,
            anchor_text,
            score: score.score.max(1),
            reasons: score.reasons,
            described,
            decided_by: None,
        },
        quoted: occ.quoted,
        refused,
    })
}

/// A candidate's address as the ranking reads it: unwrapped, with what it carries.
struct Address {
    url: Url,
    /// Its host, lower-cased.
    host: String,
    /// Its path, lower-cased.
    path: String,
    /// Its query names a token.
    token: bool,
    /// It carries an opaque token.
    opaque: bool,
}

impl Address {
    /// The occurrence's address, or `None` when it is no candidate: not http(s), a social
    /// site, an image, a help or legal page, or an anchor whose text names one.
    fn read(occ: &Occurrence) -> Option<Address> {
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
        if bad_url || (occ.anchor.is_some() && names_help_page(&anchor.to_lowercase())) {
            return None;
        }
        Some(Address {
            url,
            host,
            path,
            token,
            opaque,
        })
    }
}

/// A text that names a help or legal page (`terms`, `privacy`…).
fn names_help_page(lower: &str) -> bool {
    BAD_ANCHORS.iter().any(|b| contains_word(lower, b))
}

/// The words around a link, place by place, as the ranking reads them.
struct LinkWords {
    /// Its own text, unless generic (`click here`).
    anchor: Vec<String>,
    sentence: Vec<String>,
    /// The line before, for a bare URL or a generic anchor.
    intro: Vec<String>,
    /// The question ending the paragraph above, unless the link speaks for itself.
    lead: Vec<String>,
    paragraph: Vec<String>,
    address: Vec<String>,
}

impl LinkWords {
    fn read(occ: &Occurrence, generic: bool, url: &Url) -> LinkWords {
        let anchor = occ.anchor.as_deref().map(str::trim).unwrap_or_default();
        // a button or link with its own words, standing alone, speaks for itself: the question
        // ending the paragraph above it (`Didn't sign up? Just ignore this email.`) is not its
        let standalone_labelled = occ.anchor.is_some() && !generic && occ.sentence.is_empty();
        LinkWords {
            anchor: if generic { Vec::new() } else { words(anchor) },
            sentence: words(&occ.sentence),
            intro: if generic {
                words(&occ.intro)
            } else {
                Vec::new()
            },
            lead: if standalone_labelled {
                Vec::new()
            } else {
                words(&occ.lead)
            },
            paragraph: words(&occ.paragraph),
            address: url_words(url),
        }
    }

    /// Whether any place says `word`.
    fn say(&self, word: &str) -> bool {
        [&self.anchor, &self.sentence, &self.intro, &self.address]
            .iter()
            .any(|ws| ws.iter().any(|w| same_word(word, w)))
    }

    /// Those of `words` some place says, in their order.
    fn saying(&self, words: &[String]) -> Vec<String> {
        words.iter().filter(|w| self.say(w)).cloned().collect()
    }
}

/// Scores what the link's words say: what it is for, whether they ask to open it, the step's
/// `describe`, a help page, a defensive tone. Returns the `describe` words matched.
fn weigh_words(
    score: &mut LinkScore,
    ws: &LinkWords,
    occ: &Occurrence,
    describe: &Described,
) -> Vec<String> {
    for (ws, place, strong, login) in [
        (
            &ws.anchor,
            Place::Text,
            CONFIRM_WORDS.text,
            SIGN_IN_WORDS.text,
        ),
        (
            &ws.sentence,
            Place::Sentence,
            CONFIRM_WORDS.sentence,
            SIGN_IN_WORDS.sentence,
        ),
        (
            &ws.intro,
            Place::LineBefore,
            CONFIRM_WORDS.line_before,
            SIGN_IN_WORDS.line_before,
        ),
        (
            &ws.address,
            Place::Address,
            CONFIRM_WORDS.address,
            SIGN_IN_WORDS.address,
        ),
    ] {
        match intent(ws) {
            Some((Intent::Confirm, stem)) => score.add(strong, Reason::Says { place, stem }),
            Some((Intent::SignIn, stem)) => score.add(login, Reason::Says { place, stem }),
            None => {}
        }
    }
    for (ws, place, points) in [
        (&ws.sentence, Place::Sentence, INVITED_BY_SENTENCE),
        (&ws.intro, Place::LineBefore, INVITED_BY_LINE_BEFORE),
    ] {
        if let Some(stem) = first_stem(ws, INVITING_STEMS) {
            score.add(points, Reason::AsksToOpen { place, stem });
        }
    }
    let described = ws.saying(&describe.wanted);
    score.add_per_word(DESCRIBED_WORD, described.clone(), |words| {
        Reason::DescribeMatches { words }
    });
    score.add_per_word(AVOIDED_WORD, ws.saying(&describe.avoided), |words| {
        Reason::DescribeAvoids { words }
    });
    if occ.anchor.is_none() && names_help_page(&occ.sentence.to_lowercase()) {
        score.add(HELP_PAGE_SENTENCE, Reason::HelpPage);
    }
    if [&ws.sentence, &ws.lead, &ws.intro, &ws.paragraph]
        .iter()
        .any(|ws| first_stem(ws, CONTEXT_NEG).is_some())
    {
        score.add(DEFENSIVE, Reason::Defensive);
    }
    described
}

/// Why the link is never to be opened: words that undo something, or where it leads.
fn refusal(ws: &LinkWords, url: &Url) -> Option<Undoing> {
    [
        (&ws.anchor, UndoingPlace::Text),
        (&ws.sentence, UndoingPlace::Sentence),
        (&ws.lead, UndoingPlace::QuestionBefore),
        (&ws.intro, UndoingPlace::LineBefore),
        (&ws.address, UndoingPlace::Address),
    ]
    .into_iter()
    .find_map(|(ws, place)| undoing(ws).map(|word| Undoing::Says { place, word }))
    .or_else(|| undoing_destination(url))
}

/// Scores what the link carries and how it looks.
fn weigh_address(score: &mut LinkScore, address: &Address, button: bool) {
    let host = &address.host;
    if address.token {
        score.add(TOKEN, Reason::Token);
    }
    if host.starts_with("auth.") || host.starts_with("login.") || host.starts_with("accounts.") {
        score.add(ACCOUNTS_HOST, Reason::AccountsHost);
    }
    if button {
        score.add(BUTTON, Reason::Button);
    }
    if address.opaque {
        score.add(OPAQUE_TOKEN, Reason::OpaqueToken);
    }
    let path = &address.path;
    if (path.is_empty() || path == "/") && address.url.query().is_none() {
        score.add(HOME_PAGE, Reason::HomePage);
    }
}

/// A link's score as it is built, with one reason per change.
#[derive(Default)]
struct LinkScore {
    score: i32,
    /// The sum of the points its words earned, penalties left out.
    marked: i32,
    reasons: Vec<Reason>,
}

impl LinkScore {
    fn add(&mut self, points: i32, reason: Reason) {
        self.score += points;
        if points > 0 {
            self.marked += points;
        }
        self.reasons.push(reason);
    }

    /// `per_word` points for each of `words`, for the reason `because` words from them; none
    /// and no reason when there are none.
    fn add_per_word(
        &mut self,
        per_word: i32,
        words: Vec<String>,
        because: impl FnOnce(Vec<String>) -> Reason,
    ) {
        if !words.is_empty() {
            self.add(per_word * words.len() as i32, because(words));
        }
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
        let ranked = |href: &str, sentence: &str| {
            rank(&bare(href, sentence), &Described::default()).unwrap()
        };
        let r = ranked(
            "https://wiki.test/Special:InvalidateEmail/abc123",
            "If you did *not* register the account, follow this link to cancel the email address confirmation:",
        );
        assert!(r.refused.is_some(), "{r:?}");
        let r = ranked(
            "https://wiki.test/Special:ConfirmEmail/abc123",
            "open this link in your browser:",
        );
        assert_eq!(r.refused, None);
    }

    #[test]
    fn a_login_parameter_is_not_a_log_in_link() {
        let with_param = rank(
            &bare("https://blog.test/reset?key=abc&login=bob", ""),
            &Described::default(),
        );
        assert!(with_param.is_none_or(|r| {
            !crate::inbox::extract::worded(&r.link.reasons)
                .iter()
                .any(|x| x.contains("login"))
        }));
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
