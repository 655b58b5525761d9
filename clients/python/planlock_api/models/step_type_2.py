from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="StepType2")



@_attrs_define
class StepType2:
    """ Type a value into a form control found by label, else by CSS selector.

        Attributes:
            type_ (Literal['fill']):
            describe (str): What is filled, for humans and logs.
            value (str): The value to type; may use `{{variables}}`.
            selector (None | str | Unset): CSS selector of the control.
            label (None | str | Unset): Label text, aria-label, aria-labelledby text or placeholder of the control.
            timeout_seconds (float | None | Unset): Deadline in seconds for the control to appear and become editable
                (default 10).
            criticality (Literal['could'] | Literal['must'] | Literal['should'] | None | Unset): What a failure of this step
                means: `must` (default) ends the run, `should` and
                `could` are recorded as warnings (`should` asks at a terminal).
     """

    type_: Literal['fill']
    describe: str
    value: str
    selector: None | str | Unset = UNSET
    label: None | str | Unset = UNSET
    timeout_seconds: float | None | Unset = UNSET
    criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        describe = self.describe

        value = self.value

        selector: None | str | Unset
        if isinstance(self.selector, Unset):
            selector = UNSET
        else:
            selector = self.selector

        label: None | str | Unset
        if isinstance(self.label, Unset):
            label = UNSET
        else:
            label = self.label

        timeout_seconds: float | None | Unset
        if isinstance(self.timeout_seconds, Unset):
            timeout_seconds = UNSET
        else:
            timeout_seconds = self.timeout_seconds

        criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset
        if isinstance(self.criticality, Unset):
            criticality = UNSET
        else:
            criticality = self.criticality


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "describe": describe,
            "value": value,
        })
        if selector is not UNSET:
            field_dict["selector"] = selector
        if label is not UNSET:
            field_dict["label"] = label
        if timeout_seconds is not UNSET:
            field_dict["timeout_seconds"] = timeout_seconds
        if criticality is not UNSET:
            field_dict["criticality"] = criticality

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['fill'] , d.pop("type"))
        if type_ != 'fill':
            raise ValueError(f"type must match const 'fill', got '{type_}'")

        describe = d.pop("describe")

        value = d.pop("value")

        def _parse_selector(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        selector = _parse_selector(d.pop("selector", UNSET))


        def _parse_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label = _parse_label(d.pop("label", UNSET))


        def _parse_timeout_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        timeout_seconds = _parse_timeout_seconds(d.pop("timeout_seconds", UNSET))


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


        step_type_2 = cls(
            type_=type_,
            describe=describe,
            value=value,
            selector=selector,
            label=label,
            timeout_seconds=timeout_seconds,
            criticality=criticality,
        )

        return step_type_2

