from enum import StrEnum

class StepStatus(StrEnum):
    CANCELLED = "cancelled"
    FAILED = "failed"
    SKIPPED = "skipped"
    SUCCEEDED = "succeeded"
    WARNED = "warned"

    def __str__(self) -> str:
        return str(self.value)
