from enum import StrEnum

class ResultTag(StrEnum):
    RESULT = "result"

    def __str__(self) -> str:
        return str(self.value)
