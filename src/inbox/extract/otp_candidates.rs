//! One-time code candidates: runs of digits and upper-case letters in a line, their shape, and
//! the hard rejections read from the characters around them (prices, phones, URLs, dates).

use super::decode::is_code_char;
use crate::vocabulary::codes::MONTHS;

#[derive(Debug, Clone)]
pub(super) struct Cand {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) shown: String,
    pub(super) compact: String,
    pub(super) groups: Vec<String>,
    pub(super) sep: Option<char>,
    /// `6 0 4 1 9 2`: one character per group, single spaces.
    pub(super) spaced: bool,
}

fn run_end(cs: &[char], mut i: usize) -> usize {
    while i < cs.len() && cs[i].is_ascii_alphanumeric() {
        i += 1;
    }
    i
}

/// Every run of upper-case letters and digits, with at most one dash or space grouping.
pub(super) fn scan_candidates(cs: &[char]) -> Vec<Cand> {
    let n = cs.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if !cs[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let g1_end = run_end(cs, i);
        if i > 0 && (cs[i - 1].is_ascii_alphanumeric() || cs[i - 1] == '_')
            || !cs[i..g1_end].iter().all(|&c| is_code_char(c))
        {
            i = g1_end;
            continue;
        }
        let g1: String = cs[i..g1_end].iter().collect();
        let g1_digits = g1.chars().all(|c| c.is_ascii_digit());
        // `6 0 4 1 9 2`
        if g1.len() == 1 {
            let mut k = g1_end;
            let mut singles = vec![cs[i]];
            while k + 1 < n
                && cs[k] == ' '
                && is_code_char(cs[k + 1])
                && (k + 2 == n || !cs[k + 2].is_ascii_alphanumeric())
            {
                singles.push(cs[k + 1]);
                k += 2;
            }
            if singles.len() >= 4 {
                let compact: String = singles.iter().collect();
                out.push(Cand {
                    start: i,
                    end: k,
                    shown: compact.clone(),
                    compact,
                    groups: singles.iter().map(|c| c.to_string()).collect(),
                    sep: Some(' '),
                    spaced: true,
                });
                i = k;
                continue;
            }
        }
        let mut cand = Cand {
            start: i,
            end: g1_end,
            shown: g1.clone(),
            compact: g1.clone(),
            groups: vec![g1.clone()],
            sep: None,
            spaced: false,
        };
        if g1_end + 1 < n && cs[g1_end] == '-' && cs[g1_end + 1].is_ascii_alphanumeric() {
            let g2_end = run_end(cs, g1_end + 1);
            if !cs[g1_end + 1..g2_end].iter().all(|&c| is_code_char(c)) {
                // a hyphenated mixed-case word (`G-Suite`): no candidate here
                i = g2_end;
                continue;
            }
            let g2: String = cs[g1_end + 1..g2_end].iter().collect();
            cand.end = g2_end;
            cand.shown = format!("{g1}-{g2}");
            cand.compact = format!("{g1}{g2}");
            cand.groups.push(g2);
            cand.sep = Some('-');
        } else if g1_end + 1 < n && cs[g1_end] == ' ' && is_code_char(cs[g1_end + 1]) {
            let g2_end = run_end(cs, g1_end + 1);
            let g2: String = cs[g1_end + 1..g2_end].iter().collect();
            let (l1, l2) = (g1.len(), g2.len());
            let digits = |g: &str| g.chars().all(|c| c.is_ascii_digit());
            let has_digit = |g: &str| g.chars().any(|c| c.is_ascii_digit());
            // `482 913`, `5521 9034`; or mixed halves of equal length: `ZK4 P2Q`
            let digit_groups = g1_digits
                && digits(&g2)
                && (2..=5).contains(&l1)
                && (2..=5).contains(&l2)
                && l1.abs_diff(l2) <= 1;
            let mixed_groups = l1 == l2
                && (3..=5).contains(&l1)
                && g2.chars().all(is_code_char)
                && has_digit(&g1)
                && has_digit(&g2)
                && !(digits(&g1) && digits(&g2));
            if digit_groups || mixed_groups {
                cand.end = g2_end;
                cand.shown = format!("{g1} {g2}");
                cand.compact = format!("{g1}{g2}");
                cand.groups.push(g2);
                cand.sep = Some(' ');
            }
        }
        i = cand.end;
        out.push(cand);
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Digits,
    Mixed,
    Letters,
}

/// The shape of a candidate, or `None` when it is no code shape at all. `boxed`: its line is a
/// code laid out one character per box. Only character classes and lengths count here, never
/// whether the letters spell a word: a real word is ruled out by where it stands (no label,
/// inside a sentence), as [`super::otp`] judges.
pub(super) fn shape_of(c: &Cand, boxed: bool) -> Option<Shape> {
    let len = c.compact.len();
    if !(4..=10).contains(&len) {
        return None;
    }
    let digits = c.compact.chars().filter(|c| c.is_ascii_digit()).count();
    if digits == len {
        return Some(Shape::Digits);
    }
    if c.spaced || boxed {
        return Some(if digits == 0 {
            Shape::Letters
        } else {
            Shape::Mixed
        });
    }
    if digits == 0 {
        // letters only: two dash-separated groups of 3 to 5 letters (`LTRP-KZLV`)
        let ok = c.sep == Some('-')
            && c.groups.len() == 2
            && c.groups.iter().all(|g| (3..=5).contains(&g.len()));
        return ok.then_some(Shape::Letters);
    }
    Some(Shape::Mixed)
}

/// Characters that may surround a code that is "alone" on its line or in its element.
pub(super) fn is_trim(c: char) -> bool {
    c == ' ' || "*_:;.,!?\"'“”‘’«»()[]{}<>|-=~•·…：，。、「」『』【】（）》《".contains(c)
}

/// The word (letters only) right before `at` or right after `at`, lower-cased.
pub(super) fn word_before(lc: &[char], at: usize) -> String {
    let mut k = at;
    while k > 0 && matches!(lc[k - 1], ' ' | ',' | '.') && at - k < 3 {
        k -= 1;
    }
    let end = k;
    while k > 0 && lc[k - 1].is_alphabetic() {
        k -= 1;
    }
    lc[k..end].iter().collect()
}

pub(super) fn word_after(lc: &[char], at: usize) -> String {
    let mut k = at;
    while k < lc.len() && matches!(lc[k], ' ' | ',' | '.') && k - at < 3 {
        k += 1;
    }
    let start = k;
    while k < lc.len() && lc[k].is_alphabetic() {
        k += 1;
    }
    lc[start..k].iter().collect()
}

/// A run of at least three ASCII digits overlapping `lo..hi` (another number in between).
pub(super) fn has_number(cs: &[char], lo: usize, hi: usize) -> bool {
    let mut run = 0;
    for &c in cs.iter().take(hi.min(cs.len())).skip(lo) {
        if c.is_ascii_digit() {
            run += 1;
            if run >= 3 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Hard rejections that only look at the characters around the candidate.
pub(super) fn rejected_by_surroundings(cs: &[char], c: &Cand, recipient_runs: &[String]) -> bool {
    let n = cs.len();
    let prev = |k: usize| {
        if c.start >= k {
            Some(cs[c.start - k])
        } else {
            None
        }
    };
    let next = |k: usize| cs.get(c.end + k - 1).copied();
    // hex colours, order numbers, prices, phone / plus-address prefixes
    if matches!(
        prev(1),
        Some('#' | '$' | '€' | '£' | '¥' | '₹' | '₽' | '+' | '@' | '&' | '%' | '〒')
    ) {
        return true;
    }
    if matches!(prev(1), Some(' '))
        && matches!(prev(2), Some('#' | '$' | '€' | '£' | '¥' | '₽' | '№'))
    {
        return true;
    }
    if matches!(
        next(1),
        Some(
            '%' | '€'
                | '£'
                | '¥'
                | '₽'
                | '$'
                | '@'
                | '°'
                | '円'
                | '元'
                | '年'
                | '月'
                | '日'
                | '時'
                | '分'
                | '件'
                | '個'
                | '歳'
                | '号'
                | '번'
                | '원'
                | '년'
                | '월'
                | '일'
        )
    ) {
        return true;
    }
    // masked numbers: `***-***-4821`, `•••• 4821`, `xxxx-4821`
    let mut k = c.start;
    while k > 0 && c.start - k < 2 && matches!(cs[k - 1], '-' | ' ' | '.') {
        k -= 1;
    }
    let mask = |ch: char| matches!(ch, '*' | '•' | '●' | '∗');
    if k > 0
        && (mask(cs[k - 1])
            || (matches!(cs[k - 1], 'X' | 'x')
                && k >= 2
                && (mask(cs[k - 2]) || matches!(cs[k - 2], 'X' | 'x'))))
    {
        return true;
    }
    if matches!(next(1), Some(' '))
        && matches!(next(2), Some('%' | '€' | '£' | '円' | '元' | '₽' | '¥'))
    {
        return true;
    }
    // decimals, thousands, times, versions, dates with dots
    if matches!(prev(1), Some('.' | ',' | ':')) && prev(2).is_some_and(|d| d.is_ascii_digit()) {
        return true;
    }
    if matches!(next(1), Some('.' | ',' | ':'))
        && cs.get(c.end + 1).is_some_and(|d| d.is_ascii_digit())
        && run_end(cs, c.end + 1) - (c.end + 1) >= 2
    {
        return true;
    }
    for (sep, around) in [(prev(1), prev(2)), (next(1), next(2))] {
        if matches!(sep, Some('/' | '\\')) && around.is_some_and(|d| d.is_ascii_alphanumeric()) {
            return true;
        }
    }
    // part of a longer hyphenated or underscored word
    if matches!(prev(1), Some('-' | '_')) && prev(2).is_some_and(|d| d.is_ascii_alphanumeric()) {
        return true;
    }
    if matches!(next(1), Some('-' | '_')) && next(2).is_some_and(|d| d.is_ascii_alphanumeric()) {
        return true;
    }
    if next(1).is_some_and(|d| d.is_ascii_alphanumeric() || d == '_') {
        return true;
    }
    // inside an e-mail address, URL or domain: the ASCII token around the candidate
    let stop = |ch: char| !ch.is_ascii() || ch == ' ' || "()[]<>\"',".contains(ch);
    let mut l = c.start;
    while l > 0 && !stop(cs[l - 1]) {
        l -= 1;
    }
    let mut r = c.end;
    while r < n && !stop(cs[r]) {
        r += 1;
    }
    let token: String = cs[l..r].iter().collect();
    let token_l = token.to_ascii_lowercase();
    if token.contains(['@', '/', '\\', '=', '?', '&', '%', '+'])
        || token_l.contains("www.")
        || token_l.contains("://")
    {
        return true;
    }
    let tc: Vec<char> = token.chars().collect();
    for k in 1..tc.len().saturating_sub(1) {
        if tc[k] == '.' && tc[k - 1].is_ascii_alphanumeric() && tc[k + 1].is_ascii_alphabetic() {
            return true;
        }
    }
    // another number right next to it: phone numbers, dates, account numbers
    let skip = |ch: char| matches!(ch, ' ' | '-' | '(' | ')' | '.' | '/');
    let mut k = c.end;
    let mut hops = 0;
    while k < n && skip(cs[k]) && hops < 3 {
        k += 1;
        hops += 1;
    }
    if hops > 0 && k < n && cs[k].is_ascii_digit() {
        let e = run_end(cs, k);
        let min_run = if c.sep.is_some() { 2 } else { 3 };
        if e - k >= min_run && cs[k..e].iter().all(|d| d.is_ascii_digit()) {
            return true;
        }
    }
    let mut k = c.start;
    let mut hops = 0;
    while k > 0 && skip(cs[k - 1]) && hops < 3 {
        k -= 1;
        hops += 1;
    }
    if hops > 0 && k > 0 && cs[k - 1].is_ascii_digit() {
        let mut s = k;
        while s > 0 && cs[s - 1].is_ascii_digit() {
            s -= 1;
        }
        let len = k - s;
        let before = if s > 0 { Some(cs[s - 1]) } else { None };
        if len >= 2 || matches!(before, Some('+' | '(')) {
            return true;
        }
    }
    // the run's own address (`test+1234@…`)
    if recipient_runs.contains(&c.compact) {
        return true;
    }
    false
}

/// Whether a number is a date, a year, a phone number or a postal code: told apart by what
/// stands around it, so a code with the same digits is still found where a code word or its
/// own line marks it (`marked`).
pub(super) fn another_number(
    cs: &[char],
    lc: &[char],
    c: &Cand,
    marked: bool,
    near_kw: bool,
) -> bool {
    let wb = word_before(lc, c.start);
    let wa = word_after(lc, c.end);
    if MONTHS.contains(&wb.as_str()) || MONTHS.contains(&wa.as_str()) {
        return true;
    }
    let year = c.compact.len() == 4
        && c.sep.is_none()
        && c.compact
            .parse::<u32>()
            .is_ok_and(|y| (1900..=2099).contains(&y));
    if year && !marked {
        return true;
    }
    if c.sep == Some('-') {
        let (l1, l2) = (c.groups[0].len(), c.groups[1].len());
        let phone_or_date = (l1, l2) == (3, 4) || (l1 == 4 && l2 <= 2) || (l1 == 5 && l2 == 4);
        if phone_or_date && !marked {
            return true; // 555-0100, 2024-05, 94104-1234
        }
    }
    // US zip after a state code (`CA 94104`), or `10115 Berlin` in a comma-separated line
    if (4..=5).contains(&c.compact.len()) && c.sep.is_none() && !near_kw {
        let raw_before: String = cs[c.start.saturating_sub(3)..c.start].iter().collect();
        let state = raw_before.len() == 3
            && raw_before.ends_with(' ')
            && raw_before[..2].chars().all(|x| x.is_ascii_uppercase());
        let capital_after =
            wa.chars().next().is_some() && cs.get(c.end + 1).is_some_and(|x| x.is_uppercase());
        if state || (capital_after && cs.contains(&',')) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::inbox::extract::find_otp;
    use crate::inbox::extract::test_mail::*;

    #[test]
    fn grouped_codes_keep_their_separator() {
        let m = text_mail("Hi", "G-482913 is your verification code.");
        let found = find_otp(&m, "x@inbox.test").unwrap();
        assert_eq!(
            (found.code.as_str(), found.compact.as_str()),
            ("G-482913", "G482913")
        );
        for (body, code) in [
            ("Your code: 4X7-K2P", "4X7-K2P"),
            ("Your code: 482 913", "482 913"),
            ("Login code:\n\nLTRP-KZLV\n", "LTRP-KZLV"),
            ("Your code:\n\nZK4 P2Q\n", "ZK4 P2Q"),
        ] {
            assert_eq!(text_otp("Hi", body), Some(code.into()), "{body}");
        }
        assert_eq!(
            text_otp("Hi", "Your PIN 1234 is ready"),
            None,
            "PIN 1234 is not grouped"
        );
    }

    #[test]
    fn upper_case_words_are_ruled_out_by_where_they_stand_not_by_their_letters() {
        // inside sentences with no code word of their own, or signing the mail under `Thanks,`:
        // never a code, though the mail speaks of verifying and of a code
        let m = text_mail(
            "IMPORTANT: ONE-TIME OFFER",
            "HELLO\n\nPlease VERIFY your account. SIGN-IN takes a ONE-TIME step, FREE-SHIP \
             included.\n\nYour code will follow in a second mail.\n\nThanks,\n\nACME-CORP\n",
        );
        assert_eq!(otp(&m), None);
        // the same letters where a code stands are the code
        for code in [
            "HELLO1",
            "BENCH5",
            "QMYJE3",
            "ONE-TIME",
            "FREE-SHIP",
            "THANKS10",
        ] {
            for body in [
                format!("Your Bench Shop access code is: {code}\n\nEnter it in the open tab.\n"),
                format!("Your code:\n\n{code}\n"),
            ] {
                assert_eq!(text_otp("Access", &body), Some(code.into()), "{body}");
            }
        }
    }

    #[test]
    fn promo_codes_are_not_one_time_codes() {
        let body = "Use promo code SAVE20 today. Discount code: WELCOME10\n";
        assert_eq!(text_otp("Sale", body), None);
        // a plain "code" word, but the sentence offers a discount
        let body = "Use code THANKS10 for 10% off your next order.\n";
        assert_eq!(text_otp("Thanks", body), None);
        let body = "Your sign-in code is 482913. Use code THANKS10 for 10% off your next order.\n";
        assert_eq!(text_otp("Your code", body), Some("482913".into()));
    }

    #[test]
    fn recipient_digits_are_never_the_code() {
        let body = "Hi test+1234@inbox.test,\nYour account 1234 is ready.\nYour code: 559901\n";
        assert_eq!(text_otp("Welcome test+1234", body), Some("559901".into()));
        let body = "Your verification code\n\n1234\n";
        assert_eq!(
            text_otp("Welcome", body),
            None,
            "1234 is the recipient's own plus tag"
        );
    }

    #[test]
    fn digits_inside_urls_and_addresses_are_ignored() {
        let body =
            "Your code: see https://acme.example/verify/482913?x=1\nMail 772211@acme.example\n";
        assert_eq!(text_otp("Verify", body), None);
    }

    #[test]
    fn masked_and_card_ending_numbers_are_not_codes() {
        let m = text_mail("x", "We sent a verification code to +1 ***-***-4821.");
        assert_eq!(otp(&m), None);
        let m = text_mail(
            "x",
            "We sent a verification code to the phone ending in 4821.",
        );
        assert_eq!(otp(&m), None);
        let m = text_mail("x", "Your code for the card ending in 4821 is 583029.");
        assert_eq!(otp(&m), Some("583029".into()));
        let m = text_mail("x", "Netflix 482913 is your sign-in code");
        assert_eq!(otp(&m), Some("482913".into()));
    }

    #[test]
    fn cjk_dates_and_amounts_are_not_codes() {
        let m = text_mail("x", "認証コード発行日：2024年5月12日、手数料1200円");
        assert_eq!(otp(&m), None);
    }
}
