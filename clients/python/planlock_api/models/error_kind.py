from enum import StrEnum

class ErrorKind(StrEnum):
    AMBIGUOUS = "ambiguous"
    BROWSER = "browser"
    BROWSER_CRASHED = "browser_crashed"
    CANCELLED = "cancelled"
    EMAIL_TIMEOUT = "email_timeout"
    FORM_NOT_SENT = "form_not_sent"
    INBOX = "inbox"
    INTERRUPTED = "interrupted"
    INVALID_INPUT = "invalid_input"
    LOCK_REFUSED = "lock_refused"
    NAVIGATION = "navigation"
    NOT_ACTIONABLE = "not_actionable"
    NOT_FOUND = "not_found"
    NO_CODE = "no_code"
    NO_EFFECT = "no_effect"
    NO_LINK = "no_link"
    RUN_TIMEOUT = "run_timeout"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
