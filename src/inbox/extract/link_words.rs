//! The vocabulary of verification links: anchor and URL words that mark the link to follow,
//! and those that mark links never to follow (unsubscribe, privacy, social, images, pixels).

/// Anchor / context words of a verification link, and their weight.
const STRONG_STEMS: &[&str] = &[
    "verif",
    "vérifi",
    "confirm",
    "activat",
    "activate",
    "activer",
    "activar",
    "aktivier",
    "attiva",
    "magic",
    "validat",
    "valider",
    "validar",
    "bestätig",
    "подтверд",
    "активир",
    "確認",
    "認証",
    "有効",
    "验证",
    "確認",
    "确认",
    "激活",
    "인증",
    "확인",
];
const LOGIN_STEMS: &[&str] = &[
    "sign in",
    "sign-in",
    "signin",
    "sign_in",
    "log in",
    "log-in",
    "login",
    "log_in",
    "logon",
    "reset",
    "passwordless",
    "accept",
    "approve",
    "invit",
    "join",
    "anmeld",
    "einlogg",
    "connecter",
    "connexion",
    "iniciar sesi",
    "acceder",
    "accedi",
    "войти",
    "вход",
    "ログイン",
    "登录",
    "登入",
    "로그인",
    "zurücksetz",
    "réinitialis",
    "restablec",
    "sign me in",
];
pub(super) const WEAK_ANCHORS: &[&str] = &[
    "continue",
    "click here",
    "here",
    "this link",
    "get started",
    "open",
    "go to",
    "start",
    "weiter",
    "continuar",
    "continuer",
    "hier",
    "aquí",
    "ici",
    "qui",
    "link",
    "button",
];
/// Anchor text that is never the link to follow (matched on word boundaries when ASCII).
pub(super) const BAD_ANCHORS: &[&str] = &[
    "unsubscribe",
    "opt out",
    "opt-out",
    "privacy",
    "help",
    "help center",
    "terms",
    "support",
    "preferences",
    "preference",
    "manage notification",
    "notification settings",
    "email settings",
    "contact us",
    "contact",
    "faq",
    "view in browser",
    "view online",
    "view this email",
    "web version",
    "webversion",
    "report",
    "not me",
    "wasn't me",
    "was not me",
    "didn't request",
    "block",
    "abmelden",
    "désabonner",
    "désinscri",
    "darse de baja",
    "cancelar suscripción",
    "disiscriv",
    "отписат",
    "配信停止",
    "退订",
    "取消订阅",
    "datenschutz",
    "confidentialit",
    "privacidad",
    "impressum",
    "aviso legal",
    "mentions légales",
    "download",
    "app store",
    "google play",
    "facebook",
    "twitter",
    "linkedin",
    "instagram",
    "youtube",
    "tiktok",
    "legal",
    "policy",
    "cookie",
    "blog",
    "careers",
    "press",
];
/// Sentences around a generic anchor (`click here`) that mean "not the link to follow".
pub(super) const CONTEXT_NEG: &[&str] = &[
    "did not",
    "didn't",
    "don't recognize",
    "do not recognize",
    "not you",
    "wasn't you",
    "was not you",
    "compromised",
    "secure your account",
    "no longer wish",
    "stop receiving",
    "remove your email",
];
/// URL words (host + path) that exclude a link.
pub(super) const BAD_URL_WORDS: &[&str] = &[
    "unsubscribe",
    "unsub",
    "optout",
    "privacy",
    "help",
    "terms",
    "tos",
    "legal",
    "preferences",
    "prefs",
    "support",
    "faq",
    "contact",
    "policy",
    "policies",
    "cookies",
    "cookie",
    "abuse",
    "impressum",
    "datenschutz",
    "pixel",
    "beacon",
    "blog",
    "careers",
];
pub(super) const BAD_URL_PARTS: &[&str] = &[
    "unsubscribe",
    "optout",
    "opt-out",
    "opt_out",
    "manage-subscription",
    "email-preferences",
    "email_preferences",
    "notification-settings",
];
pub(super) const SOCIAL_HOSTS: &[&str] = &[
    "facebook.com",
    "twitter.com",
    "x.com",
    "linkedin.com",
    "instagram.com",
    "youtube.com",
    "tiktok.com",
    "apps.apple.com",
    "itunes.apple.com",
    "play.google.com",
    "pinterest.com",
    "medium.com",
    "github.com",
    "discord.gg",
];
pub(super) const IMAGE_EXTS: &[&str] = &[
    ".gif", ".png", ".jpg", ".jpeg", ".webp", ".svg", ".bmp", ".ico", ".tif", ".tiff",
];
/// Query parameters that make a URL itself a verification link (it is not a wrapper then).
pub(super) const TOKEN_KEYS: &[&str] = &[
    "token",
    "code",
    "key",
    "ticket",
    "otp",
    "signature",
    "sig",
    "hash",
    "nonce",
    "oobcode",
    "confirmation_token",
    "verification_token",
    "magic",
    "t",
];
/// Query parameters through which redirectors carry their target.
pub(super) const WRAPPER_KEYS: &[&str] = &[
    "url",
    "u",
    "redirect",
    "redirect_url",
    "redirect_to",
    "redirecturl",
    "target",
    "dest",
    "destination",
    "goto",
    "link",
    "r",
];

pub(super) fn contains_word(hay: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return hay.contains(needle);
    }
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let s = from + pos;
        let e = s + needle.len();
        let before_ok = hay[..s]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = hay[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before_ok && after_ok {
            return true;
        }
        from = s + 1;
        while !hay.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

pub(super) fn stem_score(text: &str, strong: i32, login: i32) -> i32 {
    let mut score = 0;
    if STRONG_STEMS.iter().any(|s| text.contains(s)) {
        score += strong;
    }
    if LOGIN_STEMS.iter().any(|s| text.contains(s)) {
        score += login;
    }
    score
}
