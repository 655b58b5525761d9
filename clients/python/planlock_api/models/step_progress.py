from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_state import StepState
from ..models.step_type import StepType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.step_detail import StepDetail
  from ..models.step_error import StepError





T = TypeVar("T", bound="StepProgress")



@_attrs_define
class StepProgress:
    """ One step as a run's events tell it so far.

        Attributes:
            index (int):
            type_ (StepType): A step's `type`, as written in plans.
            describe (str):
            status (StepState): Where a step of a run that goes on stands.
            duration_ms (int | None | Unset):
            detail (None | StepDetail | Unset):
            error (None | StepError | Unset):
     """

    index: int
    type_: StepType
    describe: str
    status: StepState
    duration_ms: int | None | Unset = UNSET
    detail: None | StepDetail | Unset = UNSET
    error: None | StepError | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.step_detail import StepDetail # noqa: PLC0415
        from ..models.step_error import StepError # noqa: PLC0415
        index = self.index

        type_ = self.type_.value

        describe = self.describe

        status = self.status.value

        duration_ms: int | None | Unset
        if isinstance(self.duration_ms, Unset):
            duration_ms = UNSET
        else:
            duration_ms = self.duration_ms

        detail: dict[str, Any] | None | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        elif isinstance(self.detail, StepDetail):
            detail = self.detail.to_dict()
        else:
            detail = self.detail

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, StepError):
            error = self.error.to_dict()
        else:
            error = self.error


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "index": index,
            "type": type_,
            "describe": describe,
            "status": status,
        })
        if duration_ms is not UNSET:
            field_dict["duration_ms"] = duration_ms
        if detail is not UNSET:
            field_dict["detail"] = detail
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_detail import StepDetail # noqa: PLC0415
        from ..models.step_error import StepError # noqa: PLC0415
        d = dict(src_dict)
        index = d.pop("index")

        type_ = StepType(d.pop("type"))




        describe = d.pop("describe")

        status = StepState(d.pop("status"))




        def _parse_duration_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        duration_ms = _parse_duration_ms(d.pop("duration_ms", UNSET))


        def _parse_detail(data: object) -> None | StepDetail | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                detail_type_1 = StepDetail.from_dict(data)



                return detail_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StepDetail | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))


        def _parse_error(data: object) -> None | StepError | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = StepError.from_dict(data)



                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StepError | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        step_progress = cls(
            index=index,
            type_=type_,
            describe=describe,
            status=status,
            duration_ms=duration_ms,
            detail=detail,
            error=error,
        )


        step_progress.additional_properties = d
        return step_progress

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
