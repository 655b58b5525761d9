//! Real components for integration tests: a Dovecot IMAP server and a raw SMTP client.
pub mod dovecot;
pub mod smtp;
