from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="StepType0")



@_attrs_define
class StepType0:
    """ Go to an absolute http(s) URL and wait for it to load.

        Attributes:
            type_ (Literal['navigate']):
            url (str): Absolute http(s) URL; its host must be inside the run's plan lock.
            criticality (Literal['could'] | Literal['must'] | Literal['should'] | None | Unset): What a failure of this step
                means: `must` (default) ends the run, `should` and
                `could` are recorded as warnings (`should` asks at a terminal).
     """

    type_: Literal['navigate']
    url: str
    criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        url = self.url

        criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset
        if isinstance(self.criticality, Unset):
            criticality = UNSET
        else:
            criticality = self.criticality


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "url": url,
        })
        if criticality is not UNSET:
            field_dict["criticality"] = criticality

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['navigate'] , d.pop("type"))
        if type_ != 'navigate':
            raise ValueError(f"type must match const 'navigate', got '{type_}'")

        url = d.pop("url")

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


        step_type_0 = cls(
            type_=type_,
            url=url,
            criticality=criticality,
        )

        return step_type_0

