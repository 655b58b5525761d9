from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.review_step import ReviewStep





T = TypeVar("T", bound="Review")



@_attrs_define
class Review:
    """ The review of a plan before it runs: what each step does, where, what looks destructive
    or costly, and the lock the run will have. `text` is what `planlock act` prints; the
    other fields are the same review for programs (the HTTP API, MCP tools).

        Attributes:
            allowed_hosts (list[str]): The sites the run may visit: its lock, fixed from the request before any page was
                read (each with its port where only some are allowed).
            steps (list[ReviewStep]):
            flagged_steps (list[int]): Indexes (from 0) of the steps that look destructive or costly.
            outside_lock (list[int]): Indexes (from 0) of the `navigate` steps outside the lock: the run refuses them.
            text (str): The review as a person reads it.
     """

    allowed_hosts: list[str]
    steps: list[ReviewStep]
    flagged_steps: list[int]
    outside_lock: list[int]
    text: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.review_step import ReviewStep # noqa: PLC0415
        allowed_hosts = self.allowed_hosts



        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)



        flagged_steps = self.flagged_steps



        outside_lock = self.outside_lock



        text = self.text


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allowed_hosts": allowed_hosts,
            "steps": steps,
            "flagged_steps": flagged_steps,
            "outside_lock": outside_lock,
            "text": text,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.review_step import ReviewStep # noqa: PLC0415
        d = dict(src_dict)
        allowed_hosts = cast(list[str], d.pop("allowed_hosts"))


        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            steps_item = ReviewStep.from_dict(steps_item_data)



            steps.append(steps_item)


        flagged_steps = cast(list[int], d.pop("flagged_steps"))


        outside_lock = cast(list[int], d.pop("outside_lock"))


        text = d.pop("text")

        review = cls(
            allowed_hosts=allowed_hosts,
            steps=steps,
            flagged_steps=flagged_steps,
            outside_lock=outside_lock,
            text=text,
        )


        review.additional_properties = d
        return review

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
