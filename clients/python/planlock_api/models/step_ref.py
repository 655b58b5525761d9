from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_type import StepType






T = TypeVar("T", bound="StepRef")



@_attrs_define
class StepRef:
    """ Which step a step event is about.

        Attributes:
            index (int): The step's index in the plan (0-based).
            type_ (StepType): A step's `type`, as written in plans.
            describe (str): The step in words, secrets masked.
     """

    index: int
    type_: StepType
    describe: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        index = self.index

        type_ = self.type_.value

        describe = self.describe


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "index": index,
            "type": type_,
            "describe": describe,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        type_ = StepType(d.pop("type"))




        describe = d.pop("describe")

        step_ref = cls(
            index=index,
            type_=type_,
            describe=describe,
        )


        step_ref.additional_properties = d
        return step_ref

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
