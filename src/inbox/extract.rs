//! OTP and verification-link extraction from raw messages: pure functions, no I/O.
