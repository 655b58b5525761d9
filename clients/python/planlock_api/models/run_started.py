from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.bound_inbox import BoundInbox





T = TypeVar("T", bound="RunStarted")



@_attrs_define
class RunStarted:
    """ What a `run_started` event says.

        Attributes:
            steps (int): How many steps the plan has.
            allowed_hosts (list[str]): The sites the lock allows.
            inboxes (list[BoundInbox]): The bound inboxes, without credentials.
            plan (None | str | Unset): The plan's file or name.
            inbox_address (None | str | Unset): This run's address in its default inbox.
     """

    steps: int
    allowed_hosts: list[str]
    inboxes: list[BoundInbox]
    plan: None | str | Unset = UNSET
    inbox_address: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.bound_inbox import BoundInbox # noqa: PLC0415
        steps = self.steps

        allowed_hosts = self.allowed_hosts



        inboxes = []
        for inboxes_item_data in self.inboxes:
            inboxes_item = inboxes_item_data.to_dict()
            inboxes.append(inboxes_item)



        plan: None | str | Unset
        if isinstance(self.plan, Unset):
            plan = UNSET
        else:
            plan = self.plan

        inbox_address: None | str | Unset
        if isinstance(self.inbox_address, Unset):
            inbox_address = UNSET
        else:
            inbox_address = self.inbox_address


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "steps": steps,
            "allowed_hosts": allowed_hosts,
            "inboxes": inboxes,
        })
        if plan is not UNSET:
            field_dict["plan"] = plan
        if inbox_address is not UNSET:
            field_dict["inbox_address"] = inbox_address

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bound_inbox import BoundInbox # noqa: PLC0415
        d = dict(src_dict)
        steps = d.pop("steps")

        allowed_hosts = cast(list[str], d.pop("allowed_hosts"))


        inboxes = []
        _inboxes = d.pop("inboxes")
        for inboxes_item_data in (_inboxes):
            inboxes_item = BoundInbox.from_dict(inboxes_item_data)



            inboxes.append(inboxes_item)


        def _parse_plan(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        plan = _parse_plan(d.pop("plan", UNSET))


        def _parse_inbox_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        inbox_address = _parse_inbox_address(d.pop("inbox_address", UNSET))


        run_started = cls(
            steps=steps,
            allowed_hosts=allowed_hosts,
            inboxes=inboxes,
            plan=plan,
            inbox_address=inbox_address,
        )


        run_started.additional_properties = d
        return run_started

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
