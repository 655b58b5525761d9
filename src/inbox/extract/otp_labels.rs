//! The words that mark a number as a one-time code, or as something else (order, price, phone,
//! date, footer), in several languages, and finding them in a line.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::vocabulary::codes::{
    CODE_WORDS, INSIDE_OTHER_WORDS, NOT_CODES, OFFERS, OTHER_CODES, SIGN_OFFS,
};

/// What a label says of a number beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pol {
    Pos,
    Neg,
    /// Only suppresses positive matches it contains (`barcode`, `unicode`).
    Neutral,
    /// Offers a discount (`10% off`): a code in the same sentence is a promotion code, whatever
    /// word comes before it.
    Offer,
}

/// The vocabulary's lists of labels, each with what it says of a number.
const LABELS: [(&[&str], Pol); 5] = [
    (CODE_WORDS, Pol::Pos),
    (INSIDE_OTHER_WORDS, Pol::Neutral),
    (OTHER_CODES, Pol::Neg),
    (NOT_CODES, Pol::Neg),
    (OFFERS, Pol::Offer),
];

pub(super) struct Label {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) pol: Pol,
}

/// A keyword: its characters, polarity, and whether it needs a word boundary before / after.
type Kw = (Vec<char>, Pol, bool, bool);

struct KwTable {
    by_first: HashMap<char, Vec<Kw>>,
}

fn otp_table() -> &'static KwTable {
    static TABLE: OnceLock<KwTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut by_first: HashMap<char, Vec<Kw>> = HashMap::new();
        for (spec, pol) in LABELS
            .iter()
            .flat_map(|(specs, pol)| specs.iter().map(move |spec| (spec, pol)))
        {
            let lb = spec.starts_with('^');
            let rb = spec.ends_with('$') && spec.len() > 1;
            let word = spec.trim_start_matches('^').trim_end_matches('$');
            let chars: Vec<char> = word.chars().collect();
            by_first
                .entry(chars[0])
                .or_default()
                .push((chars, *pol, lb, rb));
        }
        KwTable { by_first }
    })
}

/// Whether the line `lc` (lower-cased) is only a sign-off (`Thanks,`, `Best regards,`).
pub(super) fn is_sign_off(lc: &[char]) -> bool {
    let line: String = lc.iter().collect();
    let line = line.trim_matches(|c: char| !c.is_alphanumeric());
    SIGN_OFFS.contains(&line)
}

pub(super) fn lower(cs: &[char]) -> Vec<char> {
    cs.iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect()
}

/// Every label that lies within `lo..hi` of `text` (lower-cased), positives inside a negative
/// or neutral match removed.
pub(super) fn labels_in(text: &[char], lo: usize, hi: usize) -> Vec<Label> {
    let table = otp_table();
    let hi = hi.min(text.len());
    let mut found: Vec<Label> = Vec::new();
    for i in lo..hi {
        let Some(cands) = table.by_first.get(&text[i]) else {
            continue;
        };
        for (kw, pol, lb, rb) in cands {
            let end = i + kw.len();
            if end > hi || text[i..end] != kw[..] {
                continue;
            }
            if *lb && i > 0 && text[i - 1].is_alphabetic() {
                continue;
            }
            if *rb && end < text.len() && text[end].is_alphanumeric() {
                continue;
            }
            found.push(Label {
                start: i,
                end,
                pol: *pol,
            });
        }
    }
    let blockers: Vec<(usize, usize)> = found
        .iter()
        .filter(|l| l.pol != Pol::Pos)
        .map(|l| (l.start, l.end))
        .collect();
    found.retain(|l| {
        l.pol != Pol::Pos
            || !blockers
                .iter()
                .any(|&(s, e)| s <= l.start && l.end <= e && (e - s) > (l.end - l.start))
    });
    found.retain(|l| l.pol != Pol::Neutral);
    found.sort_by_key(|l| (l.start, l.end));
    found
}

#[cfg(test)]
mod tests {
    use crate::inbox::extract::test_mail::*;

    #[test]
    fn multilingual_keywords() {
        for (body, code) in [
            ("Tu código de verificación es 827361", "827361"),
            ("Ihr Bestätigungscode lautet: 304918", "304918"),
            ("您的验证码是839201，5分钟内有效。", "839201"),
            ("認証コード：615204", "615204"),
            ("Ваш код подтверждения: 7281", "7281"),
            ("Twój kod weryfikacyjny: 73920184", "73920184"),
        ] {
            assert_eq!(text_otp("x", body), Some(code.into()), "{body}");
        }
    }

    #[test]
    fn qualified_codes_that_are_not_one_time_codes() {
        assert_eq!(
            text_otp("x", "Your Apple ID Code is: 482913"),
            Some("482913".into())
        );
        for body in [
            "Zip code: 94107\nPostal code 10115",
            "Your referral code: 7K2P9Q",
            "Ihr Gutscheincode: AB12CD",
        ] {
            assert_eq!(text_otp("x", body), None, "{body}");
        }
    }

    #[test]
    fn expired_and_backup_codes_are_not_the_code() {
        let body = "Your old code 111111 has expired.\nYour new verification code is 222222.";
        assert_eq!(text_otp("x", body), Some("222222".into()));
        let body = "Two-factor authentication is on. Your backup codes:\n\n1234-5678\n8765-4321\n";
        assert_eq!(text_otp("x", body), None);
    }
}
