//! How mail words the link to follow, and the links never to follow (undo, destroy,
//! unsubscribe, privacy, social, images, pixels), in the languages links are read in; the
//! query parameters of tokens and redirectors. Read by `inbox/extract/link*.rs` and
//! `wrapper.rs`. Stems match at the start of a word (`verif` is `verify` and `verification`).

/// Words that say a link verifies, confirms or activates something (matched as words,
/// `inbox/extract/words.rs`).
pub(crate) const STRONG_STEMS: &[&str] = &[
    "verif",
    "vérifi",
    "confirm",
    "activat",
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
    "确认",
    "激活",
    "인증",
    "확인",
];

/// Words that say a link signs in, sets a password or accepts an invitation.
pub(crate) const LOGIN_STEMS: &[&str] = &[
    "sign in",
    "signin",
    "log in",
    "login",
    "logon",
    "reset",
    "password",
    "passwort",
    "mot de passe",
    "contraseña",
    "пароль",
    "パスワード",
    "密码",
    "비밀번호",
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

/// Words that say "this is the link to open", without saying what it does: the sentence
/// before a link a mail wants followed (`visit the following address:`).
pub(crate) const INVITING_STEMS: &[&str] = &[
    "following address",
    "following url",
    "following link",
    "following page",
    "link below",
    "button below",
    "url below",
    "follow the link",
    "follow this link",
    "open this link",
    "open the link",
    "click",
    "visit",
    "go to",
    "folgenden link",
    "lien suivant",
    "siguiente enlace",
    "seguente link",
];

/// Words that say a link undoes or destroys: such a link is never chosen, even alone.
pub(crate) const DESTRUCTIVE_STEMS: &[&str] = &[
    // English
    "cancel",
    "invalidat",
    "not you",
    "wasnt you",
    "werent you",
    "not me",
    "wasnt me",
    "did not request",
    "didnt request",
    "did not register",
    "didnt register",
    "did not sign up",
    "didnt sign up",
    "did not create",
    "didnt create",
    "did not make",
    "didnt make",
    "did not ask",
    "didnt ask",
    "did not initiate",
    "didnt initiate",
    "remov",
    "delet",
    "close account",
    "close your account",
    "close this account",
    "close my account",
    "account closure",
    "deactivat",
    "report",
    "unsubscrib",
    "opt out",
    "optout",
    "revok",
    // German
    "abbrech",
    "stornier",
    "lösch",
    "entfern",
    "abmeld",
    "kündig",
    "widerruf",
    "nicht angefordert",
    // French
    "annul",
    "supprim",
    "désabonn",
    "désinscri",
    "signaler",
    "pas vous",
    "pas demandé",
    // Spanish, Portuguese
    "cancelar",
    "elimin",
    "borrar",
    "darse de baja",
    "dar de baja",
    "no fuiste",
    "no solicitaste",
    "denunciar",
    "excluir",
    "descadastr",
    // Italian
    "annull",
    "cancella",
    "disiscriv",
    "non hai richiesto",
    "segnala",
    // Polish
    "anuluj",
    "usuń",
    "wypisz",
    // Russian
    "отмен",
    "удал",
    "отписат",
    "не вы",
    // Japanese, Chinese, Korean
    "キャンセル",
    "取り消",
    "削除",
    "解除",
    "配信停止",
    "退会",
    "取消",
    "删除",
    "退订",
    "注销",
    "举报",
    "취소",
    "삭제",
    "수신거부",
    "탈퇴",
];

/// Words after which an undoing word says what happens to the reader, not what the link does
/// (`your account will be deleted unless you verify`).
pub(crate) const PASSIVE: &[&str] = &[
    "be", "been", "being", "is", "are", "was", "were", "get", "gets",
];

/// Words that, as a word of an address, say it undoes or destroys: a path names an action
/// by its verb alone (`/account/close`, `/team/3/destroy`), where a sentence would say more.
pub(crate) const ADDRESS_UNDOING: &[&str] =
    &["close", "destroy", "erase", "purge", "wipe", "terminate"];

/// Query parameters whose value names what a link does (`?action=confirm`, `?do=resendpwd`).
pub(crate) const ACTION_KEYS: &[&str] = &["action", "@action", "do", "mode", "cmd", "op", "step"];

/// Anchor texts that say nothing of what a link does (`click here`, `continue`): the words
/// around the link decide.
pub(crate) const WEAK_ANCHORS: &[&str] = &[
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
pub(crate) const BAD_ANCHORS: &[&str] = &[
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

/// Sentences that make a link look defensive without saying it undoes anything: a penalty.
pub(crate) const CONTEXT_NEG: &[&str] = &[
    "did not",
    "didnt",
    "dont recognize",
    "do not recognize",
    "compromised",
    "secure your account",
    "no longer wish",
    "stop receiving",
];

/// URL words (host + path) that exclude a link.
pub(crate) const BAD_URL_WORDS: &[&str] = &[
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

/// Pieces of a URL, anywhere in it, that exclude a link (unsubscribing, mail preferences).
pub(crate) const BAD_URL_PARTS: &[&str] = &[
    "unsubscribe",
    "optout",
    "opt-out",
    "opt_out",
    "manage-subscription",
    "email-preferences",
    "email_preferences",
    "notification-settings",
];

/// Hosts of social networks and app stores (and their subdomains): a link there is never
/// the one to follow.
pub(crate) const SOCIAL_HOSTS: &[&str] = &[
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

/// Endings of a path that make a link an image (a tracking pixel, a logo), never a page.
pub(crate) const IMAGE_EXTS: &[&str] = &[
    ".gif", ".png", ".jpg", ".jpeg", ".webp", ".svg", ".bmp", ".ico", ".tif", ".tiff",
];

/// Query parameters that make a URL itself a verification link (it is not a wrapper then).
pub(crate) const TOKEN_KEYS: &[&str] = &[
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
pub(crate) const WRAPPER_KEYS: &[&str] = &[
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

/// Query parameters through which a link names where it sends the reader next: redirectors'
/// targets and the pages apps return to (`/redir?to=/account/delete`, `/login?next=/`).
pub(crate) const CARRIER_KEYS: &[&str] = &[
    "to",
    "next",
    "url",
    "u",
    "r",
    "redirect",
    "redirect_url",
    "redirect_to",
    "redirect_uri",
    "redirecturl",
    "redirectto",
    "return",
    "return_to",
    "returnto",
    "return_url",
    "returnurl",
    "continue",
    "dest",
    "destination",
    "goto",
    "go",
    "target",
    "link",
    "forward",
    "back",
    "then",
    "after",
    "success",
    "success_url",
    "callback",
    "location",
];

/// Describe words that say nothing about which link (`the link in the email`).
pub(crate) const DESCRIBE_STOPWORDS: &[&str] = &[
    "the", "a", "an", "to", "for", "of", "in", "on", "my", "your", "our", "this", "that", "link",
    "url", "button", "email", "mail", "message", "from", "with", "and", "or", "open", "click",
    "page", "me", "it", "is", "inbox", "follow", "use", "new", "which", "we", "you", "sent", "at",
];
