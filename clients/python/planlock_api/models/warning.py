from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_type import StepType
from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.step_error import StepError





T = TypeVar("T", bound="Warning_")



@_attrs_define
class Warning_:
    """ A step that failed without ending the run: what it said, and what the page showed.

        Attributes:
            step (int):
            type_ (StepType): A step's `type`, as written in plans.
            describe (str):
            criticality (Literal['could'] | Literal['must'] | Literal['should']): How much a step's failure matters. Plans
                are written blind, so a check whose words are a
                guess (a confirmation text) can say so.
            error (StepError): A failure with its kind and a sentence that says what was looked for and what was found.
            url (None | str | Unset): The page's URL then.
            text (None | str | Unset): The page's main visible text then (the first 1,000 characters).
     """

    step: int
    type_: StepType
    describe: str
    criticality: Literal['could'] | Literal['must'] | Literal['should']
    error: StepError
    url: None | str | Unset = UNSET
    text: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.step_error import StepError # noqa: PLC0415
        step = self.step

        type_ = self.type_.value

        describe = self.describe

        criticality: Literal['could'] | Literal['must'] | Literal['should']
        criticality = self.criticality

        error = self.error.to_dict()

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "step": step,
            "type": type_,
            "describe": describe,
            "criticality": criticality,
            "error": error,
        })
        if url is not UNSET:
            field_dict["url"] = url
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_error import StepError # noqa: PLC0415
        d = dict(src_dict)
        step = d.pop("step")

        type_ = StepType(d.pop("type"))




        describe = d.pop("describe")

        def _parse_criticality(data: object) -> Literal['could'] | Literal['must'] | Literal['should']:
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

        criticality = _parse_criticality(d.pop("criticality"))


        error = StepError.from_dict(d.pop("error"))




        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))


        warning = cls(
            step=step,
            type_=type_,
            describe=describe,
            criticality=criticality,
            error=error,
            url=url,
            text=text,
        )


        warning.additional_properties = d
        return warning

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
