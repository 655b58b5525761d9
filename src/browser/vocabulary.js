// Generated from src/vocabulary/pages.rs and codes.rs (`PLANLOCK_BLESS=1 cargo test --lib
// vocabulary`): edit those, not this file. The word lists the locator reads pages with, given to
// the locator (locator/) as `vocabulary`.
{
  "role_words": {"button":"button","btn":"button","submit":"button","link":"link","hyperlink":"link","anchor":"link","tab":"tab","checkbox":"checkbox","radio":"radio","menuitem":"menuitem","option":"option","switch":"switch","toggle":"switch","dropdown":"combobox","combobox":"combobox","select":"combobox","field":"textbox","input":"textbox","textbox":"textbox"},
  "role_phrases": [["radio\\s*button","radio"],["menu\\s*(item|entry|option)","menuitem"],["(check|tick)\\s*box","checkbox"],["text\\s*(box|field)","textbox"],["drop\\s*-?\\s*down","dropdown"]],
  "place_words": ["in","on","of","inside","within","under","below","above","near","next","beside","from","at","by"],
  "places": {"menu":["nav","header"],"navigation":["nav","header"],"nav":["nav","header"],"navbar":["nav","header"],"header":["header","nav"],"footer":["footer"],"sidebar":["aside"]},
  "equivalent": [["sign up","signup","register","create account","create an account","join","get started"],["log in","login","sign in","signin"],["continue","next"],["submit","send"],["verify","confirm","activate"]],
  "submit_words": ["submit","send","sign up","signup","register","create","join","get started","continue","next","log in","login","sign in","signin","save","request","invite","add","confirm","verify","activate","apply","finish","done","subscribe","reset","update","go"],
  "code_words": ["code","^otp$","^totp$","passcode","^pass code","^one-time pass","^one time pass","^onetime pass","^pin$","^pins$","^verif","^vérif","^weryfikac","^2fa$","^mfa$","^two-factor","^2-step","^authenticat","^token$","^código","^codigo","^codice","^kod","^koodi","^bestätigung","^einmal","^sicherheits","^код","^пароль","^подтвержд","^одноразов","验证码","驗證碼","校验码","动态码","确认码","認証","確認コード","コード","ワンタイム","パスコード","暗証番号","인증","코드","รหัส","^mã xác"],
  "inside_other_words": ["barcode","encode","decode","unicode"],
  "other_codes": ["zipcode","postcode","^zip","^postal","^area code","^country code","^source code","^qr code","^swift","^sort code","^promo","^promo code","^promotional code","^coupon code","^discount code","^voucher code","^referral code","^invite code","^invitation code","^gift code","^gift card code","^bonus code","^offer code","^zip code","^postal code","^tracking code","^product code","^item code","^order code","^error code","^old code","^previous code","^expired code","^backup code","^recovery code","^status code","^rabattcode","^gutscheincode","^aktionscode","^promocode","^couponcode","^coupon","^discount","^voucher","^referral","^gift","^rabatt","^gutschein","^cupón","^descuento","code postal","código postal","codice postale","codice fiscale","^postleitzahl","^plz$"],
  "other_code_fields": ["^invit","^post code","^country","^captcha"],
  "email_field_words": ["email","e-mail","email address"],
  "password_field_words": ["password","passphrase","passcode"],
  "error_words": ["error","errors","invalid","incorrect","wrong","required","must","match","already","taken","exists","failed","not","cannot","can't","too short","too long","please correct","please enter","please try","please fix","try again"],
  "user_content_marks": ["comment","comments","user-content","ugc"],
  "error_marks": ["error","invalid","danger","fail","warn","wrong"],
  "success_marks": ["success","valid","info"]
}
