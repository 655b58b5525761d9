from enum import StrEnum

class PlannedTag(StrEnum):
    PLANNED = "planned"

    def __str__(self) -> str:
        return str(self.value)
