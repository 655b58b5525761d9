//! Generated mails for the property tests of planlock's mail readers (headers, codes,
//! links): MIME structures, header values, transfer encodings and HTML as senders and
//! attackers write them, well-formed and broken.

use proptest::prelude::*;

/// Header names a reader looks at, and some it does not.
const HEADER_NAMES: &[&str] = &[
    "From",
    "To",
    "Cc",
    "Bcc",
    "Delivered-To",
    "X-Original-To",
    "Subject",
    "Sender",
    "Reply-To",
    "Content-Type",
    "Content-Transfer-Encoding",
    "Authentication-Results",
    "List-Unsubscribe",
    "DKIM-Signature",
    "X-Anything",
];

/// A header value: plain or broken text, RFC 2047 encoded words (valid and not), address
/// lists, MIME parameters.
pub(crate) fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,60}",
        "[ -~]{0,60}",
        ("(utf-8|iso-8859-1|x-unknown|)", "[BbQq]", "[ -~]{0,30}")
            .prop_map(|(cs, enc, text)| format!("=?{cs}?{enc}?{text}?=")),
        prop::collection::vec(("[A-Za-z \"<>,@.]{0,12}", address()), 0..4).prop_map(|list| {
            list.iter()
                .map(|(name, addr)| format!("{name} <{addr}>"))
                .collect::<Vec<_>>()
                .join(", ")
        }),
        (
            "(text|multipart|message)/(plain|html|alternative|mixed|rfc822|x)",
            "[ -~]{0,20}"
        )
            .prop_map(|(t, b)| format!("{t}; boundary=\"{b}\"; charset=utf-8")),
        "(base64|quoted-printable|7bit|8bit|x-uuencode)",
    ]
}

/// An address as senders write them: plus tags, mixed case.
pub(crate) fn address() -> impl Strategy<Value = String> {
    "[a-zA-Z][a-zA-Z0-9._-]{0,8}(\\+[a-zA-Z0-9]{1,6})?@[a-zA-Z]{1,8}\\.(test|example)"
}

/// A header block: lines of known and unknown names, some folded, some with raw bytes.
pub(crate) fn headers() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        (
            prop::sample::select(HEADER_NAMES),
            header_value(),
            any::<bool>(),
            prop::collection::vec(any::<u8>(), 0..3),
        ),
        0..10,
    )
    .prop_map(|lines| {
        let mut out = Vec::new();
        for (name, value, folded, bytes) in lines {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            let middle = value.char_indices().nth(value.chars().count() / 2);
            if let (true, Some((at, _))) = (folded, middle) {
                let (a, b) = value.split_at(at);
                out.extend_from_slice(a.as_bytes());
                out.extend_from_slice(b"\r\n\t");
                out.extend_from_slice(b.as_bytes());
            } else {
                out.extend_from_slice(value.as_bytes());
            }
            out.extend_from_slice(&bytes);
            out.extend_from_slice(b"\r\n");
        }
        out
    })
}

/// Tag soup as mail HTML has it: links to anywhere, styles with colours, tables of digits,
/// unclosed and stray tags, entities.
pub(crate) fn html() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[ -~]{0,30}",
        "[0-9]{1,10}",
        ("[ -~]{0,20}", "(https?|mailto|javascript|ftp)://[a-z.]{1,12}/[ -~]{0,20}")
            .prop_map(|(text, href)| format!("<a href=\"{href}\">{text}</a>")),
        "#[0-9a-fA-F]{6}".prop_map(|c| format!("<style>p {{ color: {c} }}</style>")),
        "[0-9A-Z]{1,2}".prop_map(|c| format!("<td>{c}</td>")),
        "(<|</)(p|div|td|tr|table|b|strong|h1|blockquote|span|br|img|script)( [a-z]{1,6}=\"[ -~]{0,10}\")?>",
        "&(amp|lt|gt|nbsp|#[0-9]{1,6}|#x[0-9a-f]{1,5}|[a-z]{1,5});?",
        Just("<script type=\"application/ld+json\">{\"@type\":\"EmailMessage\",\"potentialAction\":{\"@type\":\"ConfirmAction\",\"handler\":{\"url\":\"https://x.test/c\"}}}</script>".to_string()),
    ];
    prop::collection::vec(piece, 0..20).prop_map(|p| p.concat())
}

/// A body part: its type, transfer encoding (encoded well or badly) and content.
fn part() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(&["text/plain", "text/html", "image/gif", "message/rfc822"][..]),
        prop::sample::select(&["7bit", "base64", "quoted-printable", "bogus"][..]),
        prop_oneof![html(), "[ -~\\n]{0,80}"],
        any::<bool>(),
    )
        .prop_map(|(kind, encoding, content, well)| {
            let body = match (encoding, well) {
                ("base64", true) => {
                    use base64::Engine as _;
                    base64::engine::general_purpose::STANDARD.encode(content.as_bytes())
                }
                ("quoted-printable", true) => content.replace('=', "=3D").replace('\n', "=\r\n"),
                ("base64" | "quoted-printable", false) => format!("{content}=Z%%=\r\n==="),
                _ => content,
            };
            format!(
                "Content-Type: {kind}; charset=utf-8\r\nContent-Transfer-Encoding: {encoding}\r\n\r\n{body}\r\n"
            )
            .into_bytes()
        })
}

/// A whole mail: headers, then one part or a multipart of several (boundaries right, empty
/// or missing), sometimes nested.
pub(crate) fn mail() -> impl Strategy<Value = Vec<u8>> {
    (
        headers(),
        prop::collection::vec(part(), 1..4),
        "[A-Za-z0-9'()+_,./:=? -]{0,12}",
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(mut head, parts, boundary, multi, close)| {
            if !multi {
                head.extend_from_slice(&parts[0]);
                return head;
            }
            head.extend_from_slice(
                format!(
                    "MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"{boundary}\"\r\n\r\n"
                )
                .as_bytes(),
            );
            for p in parts {
                head.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
                head.extend_from_slice(&p);
            }
            if close {
                head.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
            }
            head
        })
}
