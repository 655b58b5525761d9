//! Embedded SMTP receiver: the app under test sends mail to planlock itself.
