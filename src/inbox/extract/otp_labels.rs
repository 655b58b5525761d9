//! The words that mark a number as a one-time code, or as something else (order, price, phone,
//! date, footer), in several languages, and finding them in a line.

use std::collections::HashMap;
use std::sync::OnceLock;

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

/// Labels around an OTP candidate. `^` = needs a word boundary before, `$` = after.
const OTP_LABELS: &[(&str, Pol)] = &[
    // --- marks a code
    ("code", Pol::Pos),
    ("^otp$", Pol::Pos),
    ("^totp$", Pol::Pos),
    ("passcode", Pol::Pos),
    ("^pass code", Pol::Pos),
    // "one-time" says code only with what it qualifies (a "one-time offer" is none)
    ("^one-time pass", Pol::Pos),
    ("^one time pass", Pol::Pos),
    ("^onetime pass", Pol::Pos),
    ("^pin$", Pol::Pos),
    ("^pins$", Pol::Pos),
    ("^verif", Pol::Pos),
    ("^vérif", Pol::Pos),
    ("^weryfikac", Pol::Pos),
    ("^2fa$", Pol::Pos),
    ("^mfa$", Pol::Pos),
    ("^two-factor", Pol::Pos),
    ("^2-step", Pol::Pos),
    ("^authenticat", Pol::Pos),
    ("^token$", Pol::Pos),
    ("^código", Pol::Pos),
    ("^codigo", Pol::Pos),
    ("^codice", Pol::Pos),
    ("^kod", Pol::Pos),
    ("^koodi", Pol::Pos),
    ("^bestätigung", Pol::Pos),
    ("^einmal", Pol::Pos),
    ("^sicherheits", Pol::Pos),
    ("^код", Pol::Pos),
    ("^пароль", Pol::Pos),
    ("^подтвержд", Pol::Pos),
    ("^одноразов", Pol::Pos),
    ("验证码", Pol::Pos),
    ("驗證碼", Pol::Pos),
    ("校验码", Pol::Pos),
    ("动态码", Pol::Pos),
    ("确认码", Pol::Pos),
    ("認証", Pol::Pos),
    ("確認コード", Pol::Pos),
    ("コード", Pol::Pos),
    ("ワンタイム", Pol::Pos),
    ("パスコード", Pol::Pos),
    ("暗証番号", Pol::Pos),
    ("인증", Pol::Pos),
    ("코드", Pol::Pos),
    ("รหัส", Pol::Pos),
    ("^mã xác", Pol::Pos),
    // --- words that contain "code" without meaning one
    ("barcode", Pol::Neutral),
    ("encode", Pol::Neutral),
    ("decode", Pol::Neutral),
    ("unicode", Pol::Neutral),
    // --- codes that are not one-time codes
    ("zipcode", Pol::Neg),
    ("postcode", Pol::Neg),
    ("^zip", Pol::Neg),
    ("^postal", Pol::Neg),
    ("^area code", Pol::Neg),
    ("^country code", Pol::Neg),
    ("^source code", Pol::Neg),
    ("^qr code", Pol::Neg),
    ("^swift", Pol::Neg),
    ("^sort code", Pol::Neg),
    ("^promo", Pol::Neg),
    ("^promo code", Pol::Neg),
    ("^promotional code", Pol::Neg),
    ("^coupon code", Pol::Neg),
    ("^discount code", Pol::Neg),
    ("^voucher code", Pol::Neg),
    ("^referral code", Pol::Neg),
    ("^invite code", Pol::Neg),
    ("^invitation code", Pol::Neg),
    ("^gift code", Pol::Neg),
    ("^gift card code", Pol::Neg),
    ("^bonus code", Pol::Neg),
    ("^offer code", Pol::Neg),
    ("^zip code", Pol::Neg),
    ("^postal code", Pol::Neg),
    ("^tracking code", Pol::Neg),
    ("^product code", Pol::Neg),
    ("^item code", Pol::Neg),
    ("^order code", Pol::Neg),
    ("^error code", Pol::Neg),
    ("^old code", Pol::Neg),
    ("^previous code", Pol::Neg),
    ("^expired code", Pol::Neg),
    ("^backup code", Pol::Neg),
    ("^recovery code", Pol::Neg),
    ("^status code", Pol::Neg),
    ("^rabattcode", Pol::Neg),
    ("^gutscheincode", Pol::Neg),
    ("^aktionscode", Pol::Neg),
    ("^promocode", Pol::Neg),
    ("^couponcode", Pol::Neg),
    ("^coupon", Pol::Neg),
    ("^discount", Pol::Neg),
    ("^voucher", Pol::Neg),
    ("^referral", Pol::Neg),
    ("^gift", Pol::Neg),
    ("^rabatt", Pol::Neg),
    ("^gutschein", Pol::Neg),
    ("^cupón", Pol::Neg),
    ("^descuento", Pol::Neg),
    ("code postal", Pol::Neg),
    ("código postal", Pol::Neg),
    ("codice postale", Pol::Neg),
    ("codice fiscale", Pol::Neg),
    ("^postleitzahl", Pol::Neg),
    ("^plz$", Pol::Neg),
    // orders, invoices, references
    ("^order", Pol::Neg),
    ("^bestell", Pol::Neg),
    ("^pedido", Pol::Neg),
    ("^commande", Pol::Neg),
    ("^ordine", Pol::Neg),
    ("^заказ", Pol::Neg),
    ("注文", Pol::Neg),
    ("订单", Pol::Neg),
    ("訂單", Pol::Neg),
    ("주문", Pol::Neg),
    ("^zamówieni", Pol::Neg),
    ("^invoice", Pol::Neg),
    ("^rechnung", Pol::Neg),
    ("^factura", Pol::Neg),
    ("^facture", Pol::Neg),
    ("^fattura", Pol::Neg),
    ("^счет", Pol::Neg),
    ("^счёт", Pol::Neg),
    ("请求", Pol::Neg),
    ("发票", Pol::Neg),
    ("請求", Pol::Neg),
    ("^receipt", Pol::Neg),
    ("^quittung", Pol::Neg),
    ("^recibo", Pol::Neg),
    ("^reçu", Pol::Neg),
    ("^tracking", Pol::Neg),
    ("^sendung", Pol::Neg),
    ("^shipment", Pol::Neg),
    ("^ticket", Pol::Neg),
    ("^case$", Pol::Neg),
    ("^reference", Pol::Neg),
    ("^referencia", Pol::Neg),
    ("^référence", Pol::Neg),
    ("^riferimento", Pol::Neg),
    ("^ref$", Pol::Neg),
    ("^transaction", Pol::Neg),
    ("^txn", Pol::Neg),
    ("^account number", Pol::Neg),
    ("^account no", Pol::Neg),
    ("^account #", Pol::Neg),
    ("^acct", Pol::Neg),
    ("^iban", Pol::Neg),
    ("^customer", Pol::Neg),
    ("^kunden", Pol::Neg),
    ("^member", Pol::Neg),
    ("^id$", Pol::Neg),
    ("^booking", Pol::Neg),
    ("^ending in", Pol::Neg),
    ("^ending with", Pol::Neg),
    ("^ends in", Pol::Neg),
    ("^ends with", Pol::Neg),
    ("^last 4", Pol::Neg),
    ("^last four", Pol::Neg),
    ("^endet auf", Pol::Neg),
    ("^termina en", Pol::Neg),
    ("^se terminant par", Pol::Neg),
    ("^reservation", Pol::Neg),
    ("^confirmation number", Pol::Neg),
    ("^confirmation no", Pol::Neg),
    ("^confirmation #", Pol::Neg),
    ("^no.", Pol::Neg),
    ("^nr$", Pol::Neg),
    ("^nr.", Pol::Neg),
    ("^nº", Pol::Neg),
    ("^n°", Pol::Neg),
    ("№", Pol::Neg),
    ("^número de pedido", Pol::Neg),
    ("^serial", Pol::Neg),
    ("^sku$", Pol::Neg),
    ("^item", Pol::Neg),
    ("^qty$", Pol::Neg),
    ("^quantity", Pol::Neg),
    ("^version", Pol::Neg),
    ("^build$", Pol::Neg),
    ("^model", Pol::Neg),
    ("^ip$", Pol::Neg),
    ("^port$", Pol::Neg),
    // phones
    ("^phone", Pol::Neg),
    ("^telephone", Pol::Neg),
    ("^tel$", Pol::Neg),
    ("^tel.", Pol::Neg),
    ("^call$", Pol::Neg),
    ("^call us", Pol::Neg),
    ("^fax", Pol::Neg),
    ("^mobile", Pol::Neg),
    ("^hotline", Pol::Neg),
    ("^whatsapp", Pol::Neg),
    ("^teléfono", Pol::Neg),
    ("^telefon", Pol::Neg),
    ("^téléphone", Pol::Neg),
    ("^tél$", Pol::Neg),
    ("^tél.", Pol::Neg),
    ("^телефон", Pol::Neg),
    ("電話", Pol::Neg),
    // addresses
    ("^suite", Pol::Neg),
    ("^ste$", Pol::Neg),
    ("^street", Pol::Neg),
    ("^st$", Pol::Neg),
    ("^st.", Pol::Neg),
    ("^ave$", Pol::Neg),
    ("^ave.", Pol::Neg),
    ("^avenue", Pol::Neg),
    ("^road", Pol::Neg),
    ("^rd$", Pol::Neg),
    ("^blvd", Pol::Neg),
    ("^floor", Pol::Neg),
    ("^straße", Pol::Neg),
    ("^strasse", Pol::Neg),
    ("^str.", Pol::Neg),
    ("^calle", Pol::Neg),
    ("^rue$", Pol::Neg),
    ("^box$", Pol::Neg),
    ("^building", Pol::Neg),
    ("^apt", Pol::Neg),
    // money
    ("^price", Pol::Neg),
    ("^total", Pol::Neg),
    ("^subtotal", Pol::Neg),
    ("^amount", Pol::Neg),
    ("^balance", Pol::Neg),
    ("^payment", Pol::Neg),
    ("^paid$", Pol::Neg),
    ("^charge", Pol::Neg),
    ("^usd$", Pol::Neg),
    ("^eur$", Pol::Neg),
    ("^gbp$", Pol::Neg),
    ("^jpy$", Pol::Neg),
    ("^betrag", Pol::Neg),
    ("^summe", Pol::Neg),
    ("^importe", Pol::Neg),
    ("^montant", Pol::Neg),
    ("^prix", Pol::Neg),
    ("^precio", Pol::Neg),
    ("^итого", Pol::Neg),
    ("^сумма", Pol::Neg),
    ("金額", Pol::Neg),
    ("合計", Pol::Neg),
    // names a user chose
    ("^username", Pol::Neg),
    ("^user name", Pol::Neg),
    ("^user id", Pol::Neg),
    ("^nickname", Pol::Neg),
    ("^display name", Pol::Neg),
    ("^account name", Pol::Neg),
    ("^benutzername", Pol::Neg),
    ("^nombre de usuario", Pol::Neg),
    ("^nom d'utilisateur", Pol::Neg),
    // discounts
    ("% off", Pol::Offer),
    ("^off your", Pol::Offer),
    ("^off the", Pol::Offer),
    ("^off all", Pol::Offer),
    ("^off any", Pol::Offer),
    ("^off everything", Pol::Offer),
    ("^off orders", Pol::Offer),
    ("^free shipping", Pol::Offer),
    ("% de descuento", Pol::Offer),
    ("% rabatt", Pol::Offer),
    ("% de réduction", Pol::Offer),
    ("% di sconto", Pol::Offer),
    // footers
    ("©", Pol::Neg),
    ("(c)", Pol::Neg),
    ("^copyright", Pol::Neg),
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
        for (spec, pol) in OTP_LABELS {
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

/// Whole lines that close a mail: the line after one is a signature (`ACME-CORP`), not a code.
const SIGN_OFFS: &[&str] = &[
    "thanks",
    "thank you",
    "many thanks",
    "thanks again",
    "regards",
    "best regards",
    "kind regards",
    "warm regards",
    "best",
    "all the best",
    "best wishes",
    "cheers",
    "sincerely",
    "yours",
    "yours sincerely",
    "yours truly",
    "viele grüße",
    "beste grüße",
    "mit freundlichen grüßen",
    "freundliche grüße",
    "cordialement",
    "bien cordialement",
    "saludos",
    "un saludo",
    "atentamente",
    "cordiali saluti",
    "saluti",
    "distinti saluti",
    "pozdrawiam",
    "с уважением",
];

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
        assert_eq!(
            otp(&text_mail("x", "Tu código de verificación es 827361")),
            Some("827361".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Ihr Bestätigungscode lautet: 304918")),
            Some("304918".into())
        );
        assert_eq!(
            otp(&text_mail("x", "您的验证码是839201，5分钟内有效。")),
            Some("839201".into())
        );
        assert_eq!(
            otp(&text_mail("x", "認証コード：615204")),
            Some("615204".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Ваш код подтверждения: 7281")),
            Some("7281".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Twój kod weryfikacyjny: 73920184")),
            Some("73920184".into())
        );
    }

    #[test]
    fn qualified_codes_that_are_not_one_time_codes() {
        assert_eq!(
            otp(&text_mail("x", "Your Apple ID Code is: 482913")),
            Some("482913".into())
        );
        assert_eq!(
            otp(&text_mail("x", "Zip code: 94107\nPostal code 10115")),
            None
        );
        assert_eq!(otp(&text_mail("x", "Your referral code: 7K2P9Q")), None);
        assert_eq!(otp(&text_mail("x", "Ihr Gutscheincode: AB12CD")), None);
    }

    #[test]
    fn expired_and_backup_codes_are_not_the_code() {
        let m = text_mail(
            "x",
            "Your old code 111111 has expired.\nYour new verification code is 222222.",
        );
        assert_eq!(otp(&m), Some("222222".into()));
        let m = text_mail(
            "x",
            "Two-factor authentication is on. Your backup codes:\n\n1234-5678\n8765-4321\n",
        );
        assert_eq!(otp(&m), None);
    }
}
