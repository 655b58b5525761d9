from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.run_status import RunStatus
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RunFinished")



@_attrs_define
class RunFinished:
    """ What a `run_finished` event says.

        Attributes:
            status (RunStatus): How a run ended.
            summary (str):
            failed_step (int | None | Unset):
            inbox_address (None | str | Unset):
            refused (int | Unset): Requests the lock refused during the run.
     """

    status: RunStatus
    summary: str
    failed_step: int | None | Unset = UNSET
    inbox_address: None | str | Unset = UNSET
    refused: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        summary = self.summary

        failed_step: int | None | Unset
        if isinstance(self.failed_step, Unset):
            failed_step = UNSET
        else:
            failed_step = self.failed_step

        inbox_address: None | str | Unset
        if isinstance(self.inbox_address, Unset):
            inbox_address = UNSET
        else:
            inbox_address = self.inbox_address

        refused = self.refused


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "status": status,
            "summary": summary,
        })
        if failed_step is not UNSET:
            field_dict["failed_step"] = failed_step
        if inbox_address is not UNSET:
            field_dict["inbox_address"] = inbox_address
        if refused is not UNSET:
            field_dict["refused"] = refused

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = RunStatus(d.pop("status"))




        summary = d.pop("summary")

        def _parse_failed_step(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        failed_step = _parse_failed_step(d.pop("failed_step", UNSET))


        def _parse_inbox_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        inbox_address = _parse_inbox_address(d.pop("inbox_address", UNSET))


        refused = d.pop("refused", UNSET)

        run_finished = cls(
            status=status,
            summary=summary,
            failed_step=failed_step,
            inbox_address=inbox_address,
            refused=refused,
        )


        run_finished.additional_properties = d
        return run_finished

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
