//! IMAP backend (async-imap): IDLE push combined with a short poll cadence while waiting.
