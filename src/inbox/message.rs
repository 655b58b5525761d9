//! Turns raw RFC 5322 bytes into a [`Message`] (sender, recipients, subject) for both backends,
//! and decides whether a message is addressed to a run. Never panics on malformed MIME.

use chrono::{DateTime, Utc};
use mail_parser::{Address, HeaderValue, MessageParser};

use super::Message;
use super::sender::Sender;

/// Headers whose addresses count as "this message was sent to". `Delivered-To` and
/// `X-Original-To` carry the envelope recipient after forwarding or BCC, which `To` may not.
const RECIPIENT_HEADERS: [&str; 7] = [
    "to",
    "cc",
    "bcc",
    "delivered-to",
    "x-original-to",
    "envelope-to",
    "x-envelope-to",
];

/// Builds a [`Message`] from the bytes a server delivered. `envelope` holds recipients known
/// outside the headers (SMTP `RCPT TO`); they are merged with the header recipients.
pub(crate) fn parse_message(
    id: String,
    raw: Vec<u8>,
    received_at: DateTime<Utc>,
    envelope: &[String],
) -> Message {
    let parsed = super::read_untrusted("the headers", Headers::default(), || headers_of(&raw));
    let mut to: Vec<String> = Vec::new();
    for address in envelope.iter().chain(parsed.recipients.iter()) {
        let address = address.trim().to_lowercase();
        if !address.is_empty() && !to.contains(&address) {
            to.push(address);
        }
    }
    Message {
        id,
        from: parsed.from,
        sender: parsed.sender,
        to,
        subject: parsed.subject,
        received_at,
        raw,
    }
}

/// Whether `message` was sent to `address`: exact, case-insensitive equality with one of its
/// recipients. Exactness matters for plus-addressing: `me+run1@x` must not see `me+run10@x`.
pub(crate) fn is_addressed_to(message: &Message, address: &str) -> bool {
    let address = address.trim().to_lowercase();
    message.to.contains(&address)
}

#[derive(Default)]
struct Headers {
    from: String,
    sender: Sender,
    subject: String,
    recipients: Vec<String>,
}

fn headers_of(raw: &[u8]) -> Headers {
    let Some(message) = MessageParser::default().parse(raw) else {
        return Headers::default();
    };
    let from = message.from().map(render_address).unwrap_or_default();
    let sender = Sender::of(&message, raw);
    let subject = message.subject().unwrap_or_default().trim().to_string();
    let mut recipients = Vec::new();
    for header in message.headers() {
        let name = header.name().to_ascii_lowercase();
        if !RECIPIENT_HEADERS.contains(&name.as_str()) {
            continue;
        }
        match header.value() {
            HeaderValue::Address(list) => recipients.extend(
                list.iter()
                    .filter_map(|a| a.address())
                    .map(|a| a.to_string()),
            ),
            HeaderValue::Text(text) => recipients.extend(addresses_in_text(text)),
            HeaderValue::TextList(list) => {
                recipients.extend(list.iter().flat_map(|t| addresses_in_text(t)))
            }
            _ => {}
        }
    }
    Headers {
        from,
        sender,
        subject,
        recipients,
    }
}

/// `Name <addr>` or `addr`, the way a person would write the sender.
fn render_address(address: &Address<'_>) -> String {
    let rendered: Vec<String> = address
        .iter()
        .map(|a| match (a.name(), a.address()) {
            (Some(name), Some(addr)) if !name.trim().is_empty() => {
                format!("{} <{}>", name.trim(), addr)
            }
            (_, Some(addr)) => addr.to_string(),
            (Some(name), None) => name.trim().to_string(),
            (None, None) => String::new(),
        })
        .filter(|s| !s.is_empty())
        .collect();
    rendered.join(", ")
}

/// Addresses in an unstructured header value such as `Delivered-To: <a@b>` or `a@b, c@d`.
fn addresses_in_text(text: &str) -> Vec<String> {
    text.split(',')
        .filter_map(|part| {
            let part = part.trim();
            let inner = match (part.find('<'), part.rfind('>')) {
                (Some(open), Some(close)) if open < close => &part[open + 1..close],
                _ => part,
            };
            let inner = inner.trim();
            inner.contains('@').then(|| inner.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &[u8]) -> Message {
        parse_message("1".into(), raw.to_vec(), Utc::now(), &[])
    }

    #[test]
    fn reads_sender_subject_and_every_recipient_header() {
        let m = parse(
            b"From: Shop Team <Hello@Shop.example>\r\n\
              To: Alice <alice+RUN1@Demo.test>, bob@demo.test\r\n\
              Cc: carol@demo.test\r\n\
              Delivered-To: <dave@demo.test>\r\n\
              X-Original-To: eve@demo.test\r\n\
              Subject: =?UTF-8?Q?Your_code_=E2=9C=93?=\r\n\r\nbody\r\n",
        );
        assert_eq!(m.from, "Shop Team <Hello@Shop.example>");
        assert_eq!(m.subject, "Your code \u{2713}");
        assert_eq!(
            m.to,
            [
                "alice+run1@demo.test",
                "bob@demo.test",
                "carol@demo.test",
                "dave@demo.test",
                "eve@demo.test"
            ]
        );
        assert!(is_addressed_to(&m, "ALICE+run1@demo.test"));
        assert!(!is_addressed_to(&m, "alice+run@demo.test"));
        assert!(!is_addressed_to(&m, "alice@demo.test"));
    }

    #[test]
    fn envelope_recipients_are_merged_without_duplicates() {
        let m = parse_message(
            "7".into(),
            b"To: a@x.test\r\n\r\n".to_vec(),
            Utc::now(),
            &["A@X.test".into(), "b@x.test".into()],
        );
        assert_eq!(m.to, ["a@x.test", "b@x.test"]);
    }

    #[test]
    fn garbage_never_panics() {
        let samples: [&[u8]; 8] = [
            b"",
            b"\r\n\r\n",
            b"From: <<<@@@>>>\r\nTo: ,,,<\r\nSubject: =?x?B?***?=\r\n\r\n",
            b"Content-Type: multipart/mixed; boundary=\"\"\r\n\r\n--\r\n--\r\n",
            b"Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\nContent-Type: message/rfc822\r\n\r\n--a",
            &[0xff, 0xfe, 0x00, 0x0d, 0x0a, 0x0d, 0x0a, 0x80],
            b"To: \xff\xfe@\xff\r\nSubject: \xc3\x28\r\n\r\n",
            b"From:\r\n To:\r\n\tSubject\r\n",
        ];
        for raw in samples {
            let m = parse(raw);
            assert_eq!(m.raw, raw);
        }
    }

    /// An address as senders write them, often one written before in another case.
    fn recipient() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy as _;
        const AGAIN: &[&str] = &[
            "ann@shop.test",
            "Ann@Shop.TEST",
            "bob+run1@demo.test",
            "BOB+run1@Demo.test",
        ];
        proptest::prop_oneof![
            crate::inbox::generated_mail::address(),
            proptest::sample::select(AGAIN).prop_map(str::to_string),
        ]
    }

    // The guard around the readers is off in tests (`read_untrusted`): a panic fails these.
    proptest::proptest! {
        #[test]
        fn any_bytes_are_read_without_panicking(raw in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let m = parse(&raw);
            proptest::prop_assert_eq!(m.raw, raw);
        }

        #[test]
        fn generated_mails_are_read_without_panicking(raw in crate::inbox::generated_mail::mail()) {
            let m = parse(&raw);
            proptest::prop_assert!(m.to.iter().all(|a| *a == a.to_lowercase()), "{:?}", m.to);
        }

        /// Every address of `To`, `Cc` and `Delivered-To` is a recipient, lower-cased, once,
        /// in the order the headers give them, whatever the display names, beside a subject
        /// read as written.
        #[test]
        fn every_recipient_header_address_is_a_recipient_once(
            lists in proptest::collection::vec(
                (
                    proptest::sample::select(&["To", "Cc", "Delivered-To"][..]),
                    proptest::collection::vec(
                        ("[A-Za-z]{0,8}( [A-Za-z]{1,8})?", recipient()),
                        1..4,
                    ),
                ),
                1..4,
            ),
            subject in "[A-Za-z0-9][A-Za-z0-9 ]{0,30}[A-Za-z0-9]",
        ) {
            let mut raw = format!("From: a@sender.test\r\nSubject: {subject}\r\n");
            let mut expected: Vec<String> = Vec::new();
            for (header, list) in &lists {
                let written: Vec<String> = list
                    .iter()
                    .map(|(name, addr)| match (header, name.is_empty()) {
                        (&"Delivered-To", _) | (_, true) => addr.clone(),
                        _ => format!("\"{name}\" <{addr}>"),
                    })
                    .collect();
                // Delivered-To carries one address per header line.
                let lines: Vec<String> = if *header == "Delivered-To" {
                    written.iter().map(|w| format!("{header}: {w}\r\n")).collect()
                } else {
                    vec![format!("{header}: {}\r\n", written.join(", "))]
                };
                raw.push_str(&lines.concat());
                for (_, addr) in list {
                    let addr = addr.to_lowercase();
                    if !expected.contains(&addr) {
                        expected.push(addr);
                    }
                }
            }
            raw.push_str("\r\nbody\r\n");
            let m = parse(raw.as_bytes());
            proptest::prop_assert_eq!(&m.to, &expected, "{}", raw);
            proptest::prop_assert_eq!(&m.subject, &subject);
        }
    }
}
