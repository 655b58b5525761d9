from enum import StrEnum

class StepType(StrEnum):
    CLICK = "click"
    DONE = "done"
    EXTRACT_TEXT = "extract_text"
    FILL = "fill"
    NAVIGATE = "navigate"
    OPEN_LINK_FROM_INBOX = "open_link_from_inbox"
    USE_OTP_FROM_INBOX = "use_otp_from_inbox"
    WAIT_FOR_EMAIL = "wait_for_email"
    WAIT_FOR_TEXT = "wait_for_text"
    WAIT_SECONDS = "wait_seconds"

    def __str__(self) -> str:
        return str(self.value)
