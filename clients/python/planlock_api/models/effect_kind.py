from enum import StrEnum

class EffectKind(StrEnum):
    DIALOG = "dialog"
    DOCUMENT = "document"
    FOCUS = "focus"
    NAVIGATION = "navigation"
    NEW_TAB = "new_tab"
    REQUEST = "request"
    SAME_DOCUMENT = "same_document"
    STATE = "state"
    SUBMISSION = "submission"

    def __str__(self) -> str:
        return str(self.value)
