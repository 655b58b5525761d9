from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.answer_source import AnswerSource






T = TypeVar("T", bound="Answer")



@_attrs_define
class Answer:
    """ A question the plan asked, and the value its `{{var}}` has in the run.

        Attributes:
            var (str):
            ask (str):
            value (str):
            source (AnswerSource): How a question the plan asks got its answer.
     """

    var: str
    ask: str
    value: str
    source: AnswerSource
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        var = self.var

        ask = self.ask

        value = self.value

        source = self.source.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "var": var,
            "ask": ask,
            "value": value,
            "source": source,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        var = d.pop("var")

        ask = d.pop("ask")

        value = d.pop("value")

        source = AnswerSource(d.pop("source"))




        answer = cls(
            var=var,
            ask=ask,
            value=value,
            source=source,
        )


        answer.additional_properties = d
        return answer

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
