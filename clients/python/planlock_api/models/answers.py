from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Answers")



@_attrs_define
class Answers:
    """ The requests a click caused (documents of its frames, its scripts' requests) that a step
    waited for, until each was answered or the wait's bound: how long, and what for.

        Attributes:
            waited_ms (int): How long the step waited, in milliseconds.
            said (str): The same in a sentence: `waited 0.8 s for POST http://…/register to be answered`.
            answered (list[str] | Unset): The requests answered while it waited (`POST http://…/register`), the first three.
            unanswered (list[str] | Unset): The requests still unanswered when it stopped waiting (a long poll, a stream),
                the
                first three: the step went on without them.
     """

    waited_ms: int
    said: str
    answered: list[str] | Unset = UNSET
    unanswered: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        waited_ms = self.waited_ms

        said = self.said

        answered: list[str] | Unset = UNSET
        if not isinstance(self.answered, Unset):
            answered = self.answered



        unanswered: list[str] | Unset = UNSET
        if not isinstance(self.unanswered, Unset):
            unanswered = self.unanswered




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "waited_ms": waited_ms,
            "said": said,
        })
        if answered is not UNSET:
            field_dict["answered"] = answered
        if unanswered is not UNSET:
            field_dict["unanswered"] = unanswered

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        waited_ms = d.pop("waited_ms")

        said = d.pop("said")

        answered = cast(list[str], d.pop("answered", UNSET))


        unanswered = cast(list[str], d.pop("unanswered", UNSET))


        answers = cls(
            waited_ms=waited_ms,
            said=said,
            answered=answered,
            unanswered=unanswered,
        )


        answers.additional_properties = d
        return answers

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
