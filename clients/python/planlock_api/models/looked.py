from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Looked")



@_attrs_define
class Looked:
    """ What the planner was shown of the start page.

        Attributes:
            url (str): The page looked at, after redirects.
            fields (int): Form fields in the outline.
            buttons (int): Buttons in the outline.
            flagged (int): Texts on the page that read like instructions to a model (counted, never sent).
            withheld (int): Texts of the outline withheld from the model for that, each marked in it.
            outline_tokens (int): The outline's size in the model's request, in tokens (about 4 characters each).
     """

    url: str
    fields: int
    buttons: int
    flagged: int
    withheld: int
    outline_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        url = self.url

        fields = self.fields

        buttons = self.buttons

        flagged = self.flagged

        withheld = self.withheld

        outline_tokens = self.outline_tokens


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "url": url,
            "fields": fields,
            "buttons": buttons,
            "flagged": flagged,
            "withheld": withheld,
            "outline_tokens": outline_tokens,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        fields = d.pop("fields")

        buttons = d.pop("buttons")

        flagged = d.pop("flagged")

        withheld = d.pop("withheld")

        outline_tokens = d.pop("outline_tokens")

        looked = cls(
            url=url,
            fields=fields,
            buttons=buttons,
            flagged=flagged,
            withheld=withheld,
            outline_tokens=outline_tokens,
        )


        looked.additional_properties = d
        return looked

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
