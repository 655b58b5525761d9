from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="StepType9")



@_attrs_define
class StepType9:
    """ End the run as succeeded.

        Attributes:
            type_ (Literal['done']):
            summary (str): What was achieved (and, for big goals, what is left).
            criticality (Literal['could'] | Literal['must'] | Literal['should'] | None | Unset): What a failure of this step
                means: `must` (default) ends the run, `should` and
                `could` are recorded as warnings (`should` asks at a terminal).
     """

    type_: Literal['done']
    summary: str
    criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        summary = self.summary

        criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset
        if isinstance(self.criticality, Unset):
            criticality = UNSET
        else:
            criticality = self.criticality


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "summary": summary,
        })
        if criticality is not UNSET:
            field_dict["criticality"] = criticality

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['done'] , d.pop("type"))
        if type_ != 'done':
            raise ValueError(f"type must match const 'done', got '{type_}'")

        summary = d.pop("summary")

        def _parse_criticality(data: object) -> Literal['could'] | Literal['must'] | Literal['should'] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            componentsschemas_criticality_type_0 = cast(Literal['must'] , data)
            if componentsschemas_criticality_type_0 != 'must':
                raise ValueError(f"/components/schemas/Criticality_type_0 must match const 'must', got '{componentsschemas_criticality_type_0}'")
            return componentsschemas_criticality_type_0
            componentsschemas_criticality_type_1 = cast(Literal['should'] , data)
            if componentsschemas_criticality_type_1 != 'should':
                raise ValueError(f"/components/schemas/Criticality_type_1 must match const 'should', got '{componentsschemas_criticality_type_1}'")
            return componentsschemas_criticality_type_1
            componentsschemas_criticality_type_2 = cast(Literal['could'] , data)
            if componentsschemas_criticality_type_2 != 'could':
                raise ValueError(f"/components/schemas/Criticality_type_2 must match const 'could', got '{componentsschemas_criticality_type_2}'")
            return componentsschemas_criticality_type_2
            return cast(Literal['could'] | Literal['must'] | Literal['should'] | None | Unset, data)

        criticality = _parse_criticality(d.pop("criticality", UNSET))


        step_type_9 = cls(
            type_=type_,
            summary=summary,
            criticality=criticality,
        )

        return step_type_9

