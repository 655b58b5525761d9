from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="ReviewStep")



@_attrs_define
class ReviewStep:
    """ One step of a [`Review`].

        Attributes:
            index (int):
            type_ (str):
            what (str): What the step does, in a line.
            host (str): Where it acts: a host, `inbox`, or the page the previous steps left.
            flags (list[str]): Words that make it look destructive or costly.
            outside_lock (bool): A `navigate` outside the lock: the run will refuse it.
     """

    index: int
    type_: str
    what: str
    host: str
    flags: list[str]
    outside_lock: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        index = self.index

        type_ = self.type_

        what = self.what

        host = self.host

        flags = self.flags



        outside_lock = self.outside_lock


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "index": index,
            "type": type_,
            "what": what,
            "host": host,
            "flags": flags,
            "outside_lock": outside_lock,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        type_ = d.pop("type")

        what = d.pop("what")

        host = d.pop("host")

        flags = cast(list[str], d.pop("flags"))


        outside_lock = d.pop("outside_lock")

        review_step = cls(
            index=index,
            type_=type_,
            what=what,
            host=host,
            flags=flags,
            outside_lock=outside_lock,
        )


        review_step.additional_properties = d
        return review_step

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
