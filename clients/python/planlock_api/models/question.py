from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Question")



@_attrs_define
class Question:
    """ A value a plan needs that the goal did not give: the plan writes it as `{{var}}`.

        Attributes:
            var (str): The variable's name, as the plan writes it (`full_name` for `{{full_name}}`).
            ask (str): The question for a person: "Full name for the account?".
            suggested (str): The answer taken when nobody gives one.
     """

    var: str
    ask: str
    suggested: str





    def to_dict(self) -> dict[str, Any]:
        var = self.var

        ask = self.ask

        suggested = self.suggested


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "var": var,
            "ask": ask,
            "suggested": suggested,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        var = d.pop("var")

        ask = d.pop("ask")

        suggested = d.pop("suggested")

        question = cls(
            var=var,
            ask=ask,
            suggested=suggested,
        )

        return question

