from enum import StrEnum

class ActBodyLookType1(StrEnum):
    REQUIRED = "required"

    def __str__(self) -> str:
        return str(self.value)
