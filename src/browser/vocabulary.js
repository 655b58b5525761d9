// Generated from src/vocabulary/pages.rs (`PLANLOCK_BLESS=1 cargo test --lib vocabulary`):
// edit that file, not this one. The word lists the locator reads pages with, given to
// locator.js as `vocabulary`.
{
  "role_words": {
    "button": "button",
    "btn": "button",
    "submit": "button",
    "link": "link",
    "hyperlink": "link",
    "anchor": "link",
    "tab": "tab",
    "checkbox": "checkbox",
    "radio": "radio",
    "menuitem": "menuitem",
    "option": "option",
    "switch": "switch",
    "toggle": "switch",
    "dropdown": "combobox",
    "combobox": "combobox",
    "select": "combobox",
    "field": "textbox",
    "input": "textbox",
    "textbox": "textbox"
  },
  "role_phrases": [
    [
      "radio\\s*button",
      "radio"
    ],
    [
      "menu\\s*(item|entry|option)",
      "menuitem"
    ],
    [
      "(check|tick)\\s*box",
      "checkbox"
    ],
    [
      "text\\s*(box|field)",
      "textbox"
    ],
    [
      "drop\\s*-?\\s*down",
      "dropdown"
    ]
  ],
  "place_words": [
    "in",
    "on",
    "of",
    "inside",
    "within",
    "under",
    "below",
    "above",
    "near",
    "next",
    "beside",
    "from",
    "at",
    "by"
  ],
  "places": {
    "menu": [
      "nav",
      "header"
    ],
    "navigation": [
      "nav",
      "header"
    ],
    "nav": [
      "nav",
      "header"
    ],
    "navbar": [
      "nav",
      "header"
    ],
    "header": [
      "header",
      "nav"
    ],
    "footer": [
      "footer"
    ],
    "sidebar": [
      "aside"
    ]
  },
  "equivalent": [
    [
      "sign up",
      "signup",
      "register",
      "create account",
      "create an account",
      "join",
      "get started"
    ],
    [
      "log in",
      "login",
      "sign in",
      "signin"
    ],
    [
      "continue",
      "next"
    ],
    [
      "submit",
      "send"
    ],
    [
      "verify",
      "confirm",
      "activate"
    ]
  ],
  "submit_words": [
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
    "go"
  ],
  "code_field_words": [
    "code",
    "otp",
    "one time",
    "onetime",
    "passcode",
    "pin",
    "token",
    "verification"
  ],
  "not_code_field_words": [
    "promo",
    "coupon",
    "voucher",
    "discount",
    "gift",
    "referral",
    "invit",
    "zip",
    "postal",
    "post code",
    "country",
    "area code",
    "captcha"
  ],
  "email_field_words": [
    "email",
    "e-mail",
    "email address"
  ],
  "password_field_words": [
    "password",
    "passphrase",
    "passcode"
  ],
  "error_words": [
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
    "try again"
  ],
  "user_content_marks": [
    "comment",
    "comments",
    "user-content",
    "ugc"
  ]
}
