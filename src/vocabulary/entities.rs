//! The HTML character references planlock decodes itself: in a mail's markup read flat
//! (`inbox/extract/html.rs`), and in the encodings of a secret it masks
//! (`plan/template/mask.rs`).

/// Named references, by name (matched regardless of case, as browsers accept `&AMP;`).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
    ("zwnj", '\u{200c}'),
    ("copy", '©'),
];

/// The character a reference's body names (`amp`, `#38`, `#x26`), if it is one of these.
pub(crate) fn entity(body: &str) -> Option<char> {
    if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code);
    }
    NAMED
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(body))
        .map(|&(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::entity;

    #[test]
    fn named_and_numeric_references_are_read_unknown_ones_are_not() {
        for (body, c) in [
            ("amp", '&'),
            ("AMP", '&'),
            ("#38", '&'),
            ("#x26", '&'),
            ("#X26", '&'),
        ] {
            assert_eq!(entity(body), Some(c), "{body}");
        }
        for body in ["ampx", "", "#", "#xZZ", "#1114112", "hellip"] {
            assert_eq!(entity(body), None, "{body}");
        }
    }
}
