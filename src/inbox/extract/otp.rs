//! Choosing the one-time code of a message: each candidate is ranked by the labels and layout
//! around it (keyword, own line, prominent element, subject), and the best one wins.

use super::decode::{Block, decode, text_blocks};
use super::html::render_html;
use super::otp_candidates::{
    Cand, Shape, another_number, has_number, is_trim, rejected_by_surroundings, scan_candidates,
    shape_of,
};
use super::otp_labels::{Pol, is_sign_off, labels_in, lower};
use super::ranking::{self, Rule, rule};
use super::reason::Reason;
use super::{Otp, OtpError, OtpSource, mask_code};
use crate::vocabulary::codes::{FOOTER_WORDS, LABEL_LEADS, VALUE_LABELS};

/// Everything known about one candidate's marking.
#[derive(Debug, Default)]
struct Marks {
    kw_before: Option<usize>,
    kw_after: Option<usize>,
    /// The last sentence of the line before holds a code word (`Your verification code:`).
    kw_prev: bool,
    kw_next: bool,
    /// The line before ends with a colon: it introduces this line (`Enter this to finish:`).
    introduced: bool,
    set_apart: bool,
    prominent: bool,
}

fn alone_in(cs: &[char], lo: usize, hi: usize, c: &Cand) -> bool {
    cs[lo..c.start].iter().all(|&x| is_trim(x)) && cs[c.end..hi].iter().all(|&x| is_trim(x))
}

/// What the labels around a candidate say: nothing, "a code" (at this distance), or "not a code".
enum Verdict {
    None,
    Pos(usize),
    Neg,
}

/// The nearest label before `at`. A negative one (`Order`, `Tel.`) only counts when no other
/// number sits between it and `at` (it describes that number); a positive one (`code`) may sit
/// further, past a number it does not describe (`code for order 12345 is 482913`).
fn label_before(cs: &[char], lc: &[char], lo: usize, at: usize) -> Verdict {
    let labels = labels_in(lc, lo, at);
    for l in labels.iter().rev() {
        let dist = at - l.end;
        let gap_has_number = has_number(cs, l.end, at);
        match l.pol {
            Pol::Neg if dist <= 40 && !gap_has_number => return Verdict::Neg,
            Pol::Pos if dist <= 80 => return Verdict::Pos(dist),
            _ => {}
        }
    }
    Verdict::None
}

fn label_after(cs: &[char], lc: &[char], at: usize, hi: usize) -> Verdict {
    let labels = labels_in(lc, at, hi);
    for l in &labels {
        let dist = l.start - at;
        if has_number(cs, at, l.start) {
            return Verdict::None;
        }
        match l.pol {
            Pol::Neg if dist <= 30 => return Verdict::Neg,
            Pol::Pos if dist <= 50 => return Verdict::Pos(dist),
            _ => {}
        }
    }
    Verdict::None
}

/// The last label of a line's last sentence, ignoring those followed by another number. A code
/// word in an earlier sentence (`Never share this code. Acme Inc.`) says nothing of the next line.
fn last_label_of(block: &Block, lc: &[char]) -> Option<Pol> {
    let labels = labels_in(lc, sentence_start(lc, lc.len()), lc.len());
    let last = labels.last()?;
    if has_number(&block.chars, last.end, block.chars.len()) {
        return None;
    }
    Some(last.pol)
}

/// Where the sentence that holds `at` starts in the line `lc`: after the last `.`, `!` or `?`
/// followed by a space (or `。`, `！`, `？`) before `at`.
fn sentence_start(lc: &[char], at: usize) -> usize {
    let at = at.min(lc.len());
    (1..at)
        .rev()
        .find(|&i| {
            matches!(lc[i - 1], '。' | '！' | '？')
                || (matches!(lc[i - 1], '.' | '!' | '?') && lc[i] == ' ')
        })
        .unwrap_or(0)
}

/// Where the sentence that holds `at` ends in the line `lc` (see [`sentence_start`]).
fn sentence_end(lc: &[char], at: usize) -> usize {
    (at..lc.len())
        .find(|&i| {
            matches!(lc[i], '。' | '！' | '？')
                || (matches!(lc[i], '.' | '!' | '?') && lc.get(i + 1).is_none_or(|&n| n == ' '))
        })
        .unwrap_or(lc.len())
}

/// The sentence around a candidate offers a discount (`Use code THANKS10 for 10% off`): it is a
/// promotion code, whatever word comes before it.
fn offered(lc: &[char], c: &Cand) -> bool {
    let (lo, hi) = (sentence_start(lc, c.start), sentence_end(lc, c.end));
    labels_in(lc, lo, hi).iter().any(|l| l.pol == Pol::Offer)
}

fn first_label_of(block: &Block, lc: &[char]) -> Option<Pol> {
    let labels = labels_in(lc, 0, lc.len().min(60));
    let first = labels.first()?;
    if has_number(&block.chars, 0, first.start) {
        return None;
    }
    Some(first.pol)
}

/// Whether the line `lc` (lower-cased) starts with a code label before `at`, after at most one
/// word of [`LABEL_LEADS`].
fn starts_with_label(lc: &[char], at: usize) -> bool {
    let Some(first) = labels_in(lc, 0, at).into_iter().find(|l| l.pol == Pol::Pos) else {
        return false;
    };
    let before: String = lc[..first.start].iter().collect();
    let ws: Vec<&str> = before
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    match ws.as_slice() {
        [] => true,
        [w] => LABEL_LEADS.contains(w),
        _ => false,
    }
}

/// Whether the lines around `bi` read like a footer, an address or an order summary.
fn in_footer_zone(lowers: &[Vec<char>], bi: usize) -> bool {
    (bi.saturating_sub(3)..(bi + 3).min(lowers.len()))
        .filter(|&i| i != bi)
        .any(|i| {
            let lc = &lowers[i];
            footerish(lc) || labels_in(lc, 0, lc.len()).iter().any(|l| l.pol == Pol::Neg)
        })
}

fn footerish(lc: &[char]) -> bool {
    let s: String = lc.iter().collect();
    FOOTER_WORDS.iter().any(|w| s.contains(w))
}

/// How a candidate ranks: its value under each rule of [`CODE_RULES`], which compares them in
/// this order, each deciding only between candidates the rules before it left equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rank {
    /// **The mail's own text**: not a quotation or a note another user typed.
    own_text: bool,
    /// **Set apart as the code**: a body part shows it on a line of its own or alone in a
    /// prominent element (or on a line that holds only its label and the code), and a code word
    /// marks it or the line before introduces it. A value a user chose (a name, a title) reaches
    /// a mail inside a sentence or in the subject, so nothing there outranks it.
    set_apart_as_code: bool,
    /// **The body before the subject**: a subject echoes names and titles a user chose, so a
    /// code there counts only when the body holds no candidate of its own.
    in_body: bool,
    /// **Marked**: a code word next to it, or alone in a prominent element.
    marked: bool,
    /// **Text before HTML**: the less layout a part carries, the less noise surrounds the code.
    text_part: bool,
    /// **Details**: how strongly a code word or the lines around mark it, and what sets it
    /// off ([`CodePoints`]: the weights below).
    details: i32,
}

/// The rules codes are ranked by, in order; a rule is a row. Their meaning: [`Rank`].
const CODE_RULES: [Rule<Rank>; 6] = [
    rule("own_text", |r| r.own_text as i64),
    rule("set_apart_as_code", |r| r.set_apart_as_code as i64),
    rule("in_body", |r| r.in_body as i64),
    rule("marked", |r| r.marked as i64),
    rule("text_part", |r| r.text_part as i64),
    rule("details", |r| r.details as i64),
];

/// A code word before the code: these points, less one for every three characters between.
const WORD_BEFORE: i32 = 55;
/// A code word after the code, in the same sentence: likewise, a little weaker.
const WORD_AFTER: i32 = 45;
/// The last sentence of the line before says code (`Your verification code:`).
const LINE_BEFORE: i32 = 38;
/// The line after a code set apart says code (`is your verification code`).
const LINE_AFTER: i32 = 25;
/// On a line of its own in the body.
const SET_APART: i32 = 25;
/// Alone in a bold, big or monospace element.
const PROMINENT: i32 = 20;
/// The line before both says code and ends with a colon: it introduces this one.
const INTRODUCED: i32 = 6;
/// Six digits: the commonest shape of a code, a hair ahead of other numbers.
const SIX_DIGITS: i32 = 3;
/// Groups joined by a separator (`G-482913`, `482-913`), which order numbers seldom have.
const ONE_SEPARATOR: i32 = 2;

/// A candidate's details as they are read, each with its points and the reason that says so:
/// the strongest mark counts, the other details add to it; a fact only a rule of [`Rank`]
/// reads is said without points.
#[derive(Default)]
struct CodePoints {
    mark: i32,
    added: i32,
    reasons: Vec<Reason>,
}

impl CodePoints {
    fn mark(&mut self, points: i32, reason: Reason) {
        self.mark = self.mark.max(points);
        self.reasons.push(reason);
    }

    fn add(&mut self, points: i32, reason: Reason) {
        self.added += points;
        self.reasons.push(reason);
    }

    fn say(&mut self, reason: Reason) {
        self.reasons.push(reason);
    }

    fn score(&self) -> i32 {
        self.mark + self.added
    }
}

/// Ranks a candidate in `blocks[bi]`, or `None` when it is not a code.
fn score_candidate(
    blocks: &[Block],
    lowers: &[Vec<char>],
    bi: usize,
    c: &Cand,
    source: OtpSource,
    message_has_kw: bool,
    recipient_runs: &[String],
) -> Option<(Rank, Vec<Reason>)> {
    let block = &blocks[bi];
    let (cs, lc) = (&block.chars, &lowers[bi]);
    let shape = shape_of(c, block.one_apart)?;
    if rejected_by_surroundings(cs, c, recipient_runs) {
        return None;
    }
    let subject = source == OtpSource::Subject;
    let m = read_marks(blocks, lowers, bi, c, subject)?;
    let near_kw = m.kw_before.is_some_and(|d| d <= 40) || m.kw_after.is_some_and(|d| d <= 30);
    let labelled = m.kw_before.is_some() || m.kw_after.is_some() || m.kw_prev || m.kw_next;
    let apart = m.set_apart || m.prominent;
    if shape == Shape::Digits && another_number(cs, lc, c, labelled || apart, near_kw) {
        return None;
    }
    if footerish(lc) && m.kw_before.is_none_or(|d| d > 30) {
        return None;
    }
    let mut t = weigh_marks(&m);
    let mark = t.mark;
    match shape {
        Shape::Letters if !(near_kw || (m.kw_prev && apart) || (apart && message_has_kw)) => {
            return None;
        }
        _ => {}
    }
    // `6 0 4 1 9 2` in running text is a list of numbers unless a code word stands right before
    if c.spaced && !(apart || near_kw) {
        return None;
    }
    if mark == 0 && !(message_has_kw && (apart || (subject && shape != Shape::Letters))) {
        return None;
    }
    // a number alone on its line among footer / address / order lines is not a code
    if mark == 0 && !subject && in_footer_zone(lowers, bi) {
        return None;
    }
    // a line that holds only the label and the code (`Your verification code is 246810.`)
    // sets the code apart as much as a line of its own
    // `Hi Your code is 999999,` (a greeting around a name) is not such a line: the line starts
    // with its label, after at most a word like "your"
    let labelled_line = m.kw_before.is_some_and(|d| d <= 30)
        && c.start <= 60
        && cs[c.end..].iter().all(|x| !x.is_alphanumeric())
        && starts_with_label(lc, c.start);
    weigh_details(&mut t, &m, c, shape, labelled_line, subject);
    if block.quoted {
        t.say(Reason::Quoted);
    }
    t.say(Reason::FoundIn(source));
    let rank = Rank {
        own_text: !block.quoted,
        set_apart_as_code: !subject && (apart || labelled_line) && (mark > 0 || m.introduced),
        in_body: !subject,
        marked: mark > 0 || (m.set_apart && m.prominent),
        text_part: source == OtpSource::Text,
        details: t.score(),
    };
    Some((rank, t.reasons))
}

/// What marks a candidate in `blocks[bi]`: code words around it, the lines before and after,
/// how it is set apart; `None` when a label says it is no code.
fn read_marks(
    blocks: &[Block],
    lowers: &[Vec<char>],
    bi: usize,
    c: &Cand,
    subject: bool,
) -> Option<Marks> {
    let block = &blocks[bi];
    let (cs, lc) = (&block.chars, &lowers[bi]);
    let mut m = Marks::default();
    // labels in the same sentence: a code word in the sentence before describes that one
    let lo = c.start.saturating_sub(100).max(sentence_start(lc, c.start));
    match label_before(cs, lc, lo, c.start) {
        Verdict::Neg => return None,
        Verdict::Pos(d) => m.kw_before = Some(d),
        Verdict::None => {}
    }
    if m.kw_before.is_none() {
        match label_after(cs, lc, c.end, (c.end + 60).min(sentence_end(lc, c.end))) {
            Verdict::Neg => return None,
            Verdict::Pos(d) => m.kw_after = Some(d),
            Verdict::None => {}
        }
    }
    if offered(lc, c) {
        return None;
    }
    m.set_apart = alone_in(cs, 0, cs.len(), c);
    m.prominent = block
        .prominent
        .iter()
        .any(|&(s, e)| s <= c.start && c.end <= e && alone_in(cs, s, e, c));
    // the line before (`Your code is:` / `Order number:`) and after
    let at_line_start = cs[..c.start].iter().all(|&x| is_trim(x));
    if at_line_start && bi > 0 && !subject {
        // the line after `Thanks,` signs the mail
        if m.kw_before.is_none() && m.kw_after.is_none() && is_sign_off(&lowers[bi - 1]) {
            return None;
        }
        m.introduced = blocks[bi - 1].text().trim_end().ends_with([':', '：']);
        if m.kw_before.is_none() {
            match last_label_of(&blocks[bi - 1], &lowers[bi - 1]) {
                Some(Pol::Neg) => return None,
                Some(Pol::Pos) => m.kw_prev = true,
                _ => {}
            }
        }
    }
    if m.kw_before.is_none()
        && m.kw_after.is_none()
        && !m.kw_prev
        && m.set_apart
        && bi + 1 < blocks.len()
        && !subject
        && first_label_of(&blocks[bi + 1], &lowers[bi + 1]) == Some(Pol::Pos)
    {
        m.kw_next = true;
    }
    Some(m)
}

/// How strongly code words mark the candidate: the strongest mark counts.
fn weigh_marks(m: &Marks) -> CodePoints {
    let mut t = CodePoints::default();
    if let Some(d) = m.kw_before {
        t.mark(
            WORD_BEFORE - d as i32 / 3,
            Reason::CodeWordBefore { distance: d },
        );
    }
    if let Some(d) = m.kw_after {
        t.mark(
            WORD_AFTER - d as i32 / 3,
            Reason::CodeWordAfter { distance: d },
        );
    }
    if m.kw_prev {
        t.mark(LINE_BEFORE, Reason::LineBeforeSaysCode);
    }
    if m.kw_next {
        t.mark(LINE_AFTER, Reason::LineAfterSaysCode);
    }
    t
}

/// The details that add to a candidate's mark: how the line before introduces it, how it is
/// set apart, its shape.
fn weigh_details(
    t: &mut CodePoints,
    m: &Marks,
    c: &Cand,
    shape: Shape,
    labelled_line: bool,
    subject: bool,
) {
    // the line before introduces it as a code (`Your code:`), rather than mentions codes
    if m.kw_prev && m.introduced {
        t.add(INTRODUCED, Reason::IntroducedAsCode);
    } else if m.introduced {
        t.say(Reason::Introduced);
    }
    if labelled_line {
        t.say(Reason::LabelledLine);
    }
    if m.set_apart && !subject {
        t.add(SET_APART, Reason::SetApart);
    }
    if m.prominent {
        t.add(PROMINENT, Reason::Prominent);
    }
    if shape == Shape::Digits && c.compact.len() == 6 {
        t.add(SIX_DIGITS, Reason::SixDigits);
    }
    if c.sep.is_some() && !c.spaced {
        t.add(ONE_SEPARATOR, Reason::Separator);
    }
}

/// A line as its labels are read: lower-cased, with the letters of every code-shaped token
/// blanked unless a label covers whole words of it. A label word inside a code is part of the
/// code (`ORDER7`, `ZIPQ-KLMN` say nothing of order or zip codes); `PIN-CODE` still says "PIN"
/// and "code".
fn label_text(block: &Block) -> Vec<char> {
    let mut lc = lower(&block.chars);
    let labels = labels_in(&lc, 0, lc.len());
    for c in scan_candidates(&block.chars) {
        if shape_of(&c, block.one_apart).is_none() {
            continue;
        }
        let boundary = |p: usize| {
            p <= c.start || p >= c.end || !lc[p - 1].is_alphanumeric() || !lc[p].is_alphanumeric()
        };
        let words: Vec<(usize, usize)> = labels
            .iter()
            .filter(|l| l.start < c.end && c.start < l.end && boundary(l.start) && boundary(l.end))
            .map(|l| (l.start, l.end))
            .collect();
        for (i, ch) in lc.iter_mut().enumerate().take(c.end).skip(c.start) {
            if ch.is_alphabetic() && !words.iter().any(|&(s, e)| s <= i && i < e) {
                *ch = '0';
            }
        }
    }
    lc
}

pub(super) fn find_otp_inner(raw: &[u8], recipient: &str) -> Result<Otp, OtpError> {
    let d = decode(raw).ok_or(OtpError::NoCode)?;
    let recipient_runs: Vec<String> = recipient
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|r| r.len() >= 4)
        .map(|r| r.to_ascii_uppercase())
        .collect();
    let mut sources: Vec<(OtpSource, Vec<Block>)> = Vec::new();
    sources.push((OtpSource::Subject, vec![Block::from_line(&d.subject)]));
    for t in &d.texts {
        sources.push((OtpSource::Text, text_blocks(t)));
    }
    for h in &d.htmls {
        sources.push((OtpSource::Html, render_html(h).blocks));
    }
    let lowers: Vec<Vec<Vec<char>>> = sources
        .iter()
        .map(|(_, blocks)| blocks.iter().map(label_text).collect())
        .collect();
    let message_has_kw = lowers
        .iter()
        .flatten()
        .any(|lc| labels_in(lc, 0, lc.len()).iter().any(|l| l.pol == Pol::Pos));
    // the best rank of each distinct code
    let mut best: Vec<(Rank, Otp)> = Vec::new();
    for ((source, blocks), lows) in sources.iter().zip(&lowers) {
        for bi in 0..blocks.len() {
            for cand in scan_candidates(&blocks[bi].chars) {
                let Some((rank, reasons)) = score_candidate(
                    blocks,
                    lows,
                    bi,
                    &cand,
                    *source,
                    message_has_kw,
                    &recipient_runs,
                ) else {
                    continue;
                };
                let code = if cand.spaced {
                    cand.compact.clone()
                } else {
                    cand.shown.clone()
                };
                let otp = Otp {
                    code,
                    compact: cand.compact.clone(),
                    source: *source,
                    reasons,
                    decided_by: None,
                };
                match best.iter_mut().find(|(_, o)| o.compact == cand.compact) {
                    Some(entry) => {
                        // the same code in several parts: said to come from the part read
                        // first (subject, text, HTML), ranked by its best place
                        let first_part = entry.1.source;
                        if ranking::compare(&rank, &entry.0, &CODE_RULES).is_gt() {
                            *entry = (rank, otp);
                        }
                        entry.1.source = first_part;
                    }
                    None => best.push((rank, otp)),
                }
            }
        }
    }
    // stable: among equal ranks the first found stays first
    ranking::sort(&mut best, &CODE_RULES, |(rank, _)| rank);
    match best.as_slice() {
        [] => labelled_token(&sources, &lowers).ok_or(OtpError::NoCode),
        [(r1, first), (r2, second), ..] => match ranking::decided_by(r1, r2, &CODE_RULES) {
            None => Err(OtpError::Ambiguous {
                first: mask_code(&first.code),
                second: mask_code(&second.code),
            }),
            Some(rule) => Ok(Otp {
                decided_by: Some(rule),
                ..first.clone()
            }),
        },
        [(_, first)] => Ok(first.clone()),
    }
}

/// When nothing has the shape of a code: a value that a code label introduces on its own line
/// (`Verification Token: b'2UkFi3Ep'`), taken exactly as shown. The value must be one word of
/// 6 to 24 characters with a letter, and a digit unless it does not read as a word (random
/// tokens without a digit are common: one in four of eight base64 characters), and the label
/// must say code and nothing that rules a code out (order, promo…).
fn labelled_token(sources: &[(OtpSource, Vec<Block>)], lowers: &[Vec<Vec<char>>]) -> Option<Otp> {
    for ((source, blocks), lows) in sources.iter().zip(lowers) {
        if *source == OtpSource::Subject {
            continue;
        }
        for (block, lc) in blocks.iter().zip(lows) {
            if block.quoted {
                continue;
            }
            let Some(colon) = block.chars.iter().position(|&c| c == ':') else {
                continue;
            };
            let label: String = lc[..colon].iter().collect();
            let last = label
                .split(|c: char| !c.is_alphanumeric())
                .rfind(|w| !w.is_empty())
                .unwrap_or_default();
            let labels = labels_in(lc, 0, colon);
            if !VALUE_LABELS.contains(&last)
                || !labels.iter().any(|l| l.pol == Pol::Pos)
                || labels.iter().any(|l| l.pol == Pol::Neg)
            {
                continue;
            }
            let value: String = block.chars[colon + 1..].iter().collect();
            let value = value.trim();
            let n = value.chars().count();
            if !(6..=24).contains(&n)
                || value.chars().any(char::is_whitespace)
                || value.contains("://")
                || value.contains('@')
                || !value.chars().any(char::is_alphabetic)
                || (!value.chars().any(|c| c.is_ascii_digit()) && reads_as_word(value))
            {
                continue;
            }
            return Some(Otp {
                code: value.to_string(),
                compact: value.chars().filter(char::is_ascii_alphanumeric).collect(),
                source: *source,
                reasons: vec![
                    Reason::Labelled {
                        label: label.trim().to_string(),
                    },
                    Reason::TakenAsShown,
                ],
                decided_by: None,
            });
        }
    }
    None
}

/// Whether `value` reads as a word where a code would stand ("expired.", "Unavailable",
/// "(hidden)"): only letters once sentence punctuation and matching quotes or brackets around
/// it are set aside, in one case or capitalised. A random token mixes its case or holds other
/// characters (`b'qWeRtYuI'`).
fn reads_as_word(value: &str) -> bool {
    let mut v = value.trim_end_matches(['.', ',', ';', '!', '?']);
    for (open, close) in [('(', ')'), ('[', ']'), ('"', '"'), ('\'', '\''), ('“', '”')] {
        if let Some(inner) = v.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            v = inner;
        }
    }
    if v.is_empty() || !v.chars().all(char::is_alphabetic) {
        return false;
    }
    let rest: String = v.chars().skip(1).collect();
    v.chars().all(char::is_lowercase)
        || v.chars().all(char::is_uppercase)
        || rest.chars().all(char::is_lowercase)
}

#[cfg(test)]
mod tests {
    use crate::inbox::extract::test_mail::*;
    use crate::inbox::extract::{OtpError, OtpSource, find_otp};

    #[test]
    fn someone_elses_code_ranks_below_the_template_and_equal_codes_are_refused() {
        // a quoted reply and an inviter's note both carry a well-marked code
        let body = "Your code is 482913.\n\nOn Mon, Mallory <m@evil.test> wrote:\n> Your verification code:\n>\n> 999999\n";
        let found = found_otp(&text_mail("Your sign-in code", body));
        assert_eq!(found.code, "482913");
        assert!(!found.reasons.is_empty());
        let html = r#"<p>Mallory invited you.</p><div><p><b>Message from Mallory:</b></p>
            <p>Your verification code:</p><p style="font-size:28px">999999</p></div>
            <p>To accept, your verification code is <b>482913</b>.</p>"#;
        assert_eq!(otp(&html_mail("Invitation", html)), Some("482913".into()));
        let body = "Your verification code:\n\n482913\n\nYour verification code:\n\n551204\n";
        match find_otp(&text_mail("Codes", body), "test+1234@inbox.test") {
            Err(OtpError::Ambiguous { first, second }) => {
                assert_eq!((first.as_str(), second.as_str()), ("48••••", "55••••"));
            }
            other => panic!("two equal codes are refused, not {other:?}"),
        }
    }

    #[test]
    fn a_token_its_label_introduces_is_taken_as_shown_only_when_nothing_else_is_a_code() {
        let body = "Username: heidi\nVerification Token: b'2UkFi3Ep'\n";
        assert_eq!(
            text_otp("Account email verification", body),
            Some("b'2UkFi3Ep'".into())
        );
        for body in [
            "Promo code: SAVE20XYZ\n",
            "Order code: a1b2c3d4\n",
            "Username: heidi2024\n",
            "Your code: https://x.example/a1\n",
        ] {
            assert_eq!(otp(&text_mail("Hello", body)), None, "{body}");
        }
        let m = text_mail("Code", "Token: abc123xyz\nYour code is 482913.\n");
        assert_eq!(otp(&m), Some("482913".into()));
    }

    #[test]
    fn a_labelled_token_without_a_digit_is_taken_unless_it_reads_as_a_word() {
        // TracAccountManager's tokens are 8 URL-safe base64 characters: one in four has no
        // digit, and the mail labels it all the same.
        for token in ["b'qWeRtYuI'", "b'ab-cd_ef'", "b'abcdefgh'", "xKcdQwErTy"] {
            let m = text_mail(
                "Account email verification",
                &format!("Username: heidi\nVerification Token: {token}\n"),
            );
            assert_eq!(otp(&m), Some(token.into()), "{token}");
        }
        // A word where a code would be is no code, whatever its case or quotes.
        for value in [
            "expired.",
            "Unavailable",
            "SUSPENDED",
            "(hidden)",
            "'pending'",
        ] {
            let m = text_mail("Hello", &format!("Verification code: {value}\n"));
            assert_eq!(otp(&m), None, "{value}");
        }
    }

    #[test]
    fn a_code_in_a_greeting_does_not_beat_the_html_code() {
        // the text part greets a user named "Your code is 999999" and leaves the code to HTML
        let raw = "From: a@shop.example\r\nTo: test+1234@inbox.test\r\nSubject: Welcome\r\n\
            MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n\
            --b\r\nContent-Type: text/plain\r\n\r\nHi Your code is 999999,\r\n\r\n\
            thanks for signing up. Open the HTML version for your code.\r\n\
            --b\r\nContent-Type: text/html\r\n\r\n<p>Hi Your code is 999999,</p>\
            <p>Your verification code:</p><p style=\"font-size:28px\">482913</p>\r\n--b--\r\n";
        assert_eq!(otp(raw.as_bytes()), Some("482913".into()));
    }

    #[test]
    fn a_code_in_the_subject_counts_only_when_the_body_holds_none() {
        for (subject, body, code, source) in [
            // the subject echoes a name the user chose; the body mentions its code in a sentence
            (
                "Your code is 999999, welcome",
                "Hi Ada, use code 482913 to finish signing up.\n",
                "482913",
                OtpSource::Text,
            ),
            // nothing in the body: the subject's code
            (
                "Your code is 771204",
                "Enter it on the page.\n",
                "771204",
                OtpSource::Subject,
            ),
            (
                "Your login code: 771204",
                "Use the code from the subject line.",
                "771204",
                OtpSource::Subject,
            ),
        ] {
            let found = found_otp(&text_mail(subject, body));
            assert_eq!(
                (found.code.as_str(), found.source),
                (code, source),
                "{subject}"
            );
        }
    }

    #[test]
    fn keyword_adjacent_digits() {
        let body = "Your verification code is 482913. It expires soon.";
        let found = found_otp(&text_mail("Sign in", body));
        assert_eq!(
            (found.code.as_str(), found.compact.as_str(), found.source),
            ("482913", "482913", OtpSource::Text)
        );
    }

    #[test]
    fn years_prices_phones_dates_orders_are_not_codes() {
        let body = "Your code is below.\n\n© 2024 Acme Inc.\nTotal: $49.99\nCall 1-800-555-0199 or +1 (415) 555-0100\n\
                    Date: 12/05/2024, May 12, 2024, 2024-05-12 at 14:32\nOrder #112233\nOrder number: 556677\n\
                    Invoice 20240512\n548 Market St, San Francisco, CA 94104\n";
        assert_eq!(otp(&text_mail("Hello", body)), None);
        let body2 = format!("{body}\nYour one-time code: 640215\n");
        assert_eq!(otp(&text_mail("Hello", &body2)), Some("640215".into()));
    }

    #[test]
    fn order_label_applies_to_its_own_number_only() {
        let m = text_mail("Hi", "Your verification code for order 12345 is 482913.");
        assert_eq!(otp(&m), Some("482913".into()));
        let m = text_mail("Hi", "Order number:\n48291\n\nThanks for shopping.");
        assert_eq!(otp(&m), None);
    }

    #[test]
    fn text_part_is_preferred_over_html_when_both_are_marked() {
        let raw = b"From: a@x.example\r\nTo: b@inbox.test\r\nSubject: Hi\r\nMIME-Version: 1.0\r\n\
            Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n\
            Your verification code is 246810.\r\n--b\r\nContent-Type: text/html\r\n\r\n\
            <p>Your verification code:</p><h1>135790</h1>\r\n--b--\r\n";
        let found = find_otp(raw, "b@inbox.test").unwrap();
        assert_eq!(
            (found.code.as_str(), found.source),
            ("246810", OtpSource::Text)
        );
    }
}
