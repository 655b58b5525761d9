from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="EmailSeen")



@_attrs_define
class EmailSeen:
    """ The message an inbox step matched. (Its fields are optional in the API's schema: they are
    a step detail's only when the step read an email.)

        Attributes:
            email_subject (str | Unset):
            email_from (str | Unset):
            email_received_at (str | Unset): RFC 3339, UTC.
            email_older_copies (int | Unset): Older copies of this mail (the same sender and subject) that had arrived
                unused: the
                newest copy was taken, and they were marked used with it.
     """

    email_subject: str | Unset = UNSET
    email_from: str | Unset = UNSET
    email_received_at: str | Unset = UNSET
    email_older_copies: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        email_subject = self.email_subject

        email_from = self.email_from

        email_received_at = self.email_received_at

        email_older_copies = self.email_older_copies


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if email_subject is not UNSET:
            field_dict["email_subject"] = email_subject
        if email_from is not UNSET:
            field_dict["email_from"] = email_from
        if email_received_at is not UNSET:
            field_dict["email_received_at"] = email_received_at
        if email_older_copies is not UNSET:
            field_dict["email_older_copies"] = email_older_copies

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        email_subject = d.pop("email_subject", UNSET)

        email_from = d.pop("email_from", UNSET)

        email_received_at = d.pop("email_received_at", UNSET)

        email_older_copies = d.pop("email_older_copies", UNSET)

        email_seen = cls(
            email_subject=email_subject,
            email_from=email_from,
            email_received_at=email_received_at,
            email_older_copies=email_older_copies,
        )


        email_seen.additional_properties = d
        return email_seen

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
