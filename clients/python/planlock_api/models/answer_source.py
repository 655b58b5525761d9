from enum import StrEnum

class AnswerSource(StrEnum):
    ASKED = "asked"
    GIVEN = "given"
    SUGGESTED = "suggested"

    def __str__(self) -> str:
        return str(self.value)
