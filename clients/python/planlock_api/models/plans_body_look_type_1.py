from enum import StrEnum

class PlansBodyLookType1(StrEnum):
    REQUIRED = "required"

    def __str__(self) -> str:
        return str(self.value)
