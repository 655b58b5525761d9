from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.planned import Planned





T = TypeVar("T", bound="Accepted")



@_attrs_define
class Accepted:
    """ `202 Accepted` for `Prefer: respond-async`.

        Example:
            {'run_id': 'qsbqxhbb', 'status': 'queued', 'href': '/v1/runs/qsbqxhbb'}

        Attributes:
            run_id (str):
            status (str): `queued` or `running`.
            href (str): Where to poll.
            planning (None | Planned | Unset):
     """

    run_id: str
    status: str
    href: str
    planning: None | Planned | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.planned import Planned # noqa: PLC0415
        run_id = self.run_id

        status = self.status

        href = self.href

        planning: dict[str, Any] | None | Unset
        if isinstance(self.planning, Unset):
            planning = UNSET
        elif isinstance(self.planning, Planned):
            planning = self.planning.to_dict()
        else:
            planning = self.planning


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "run_id": run_id,
            "status": status,
            "href": href,
        })
        if planning is not UNSET:
            field_dict["planning"] = planning

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.planned import Planned # noqa: PLC0415
        d = dict(src_dict)
        run_id = d.pop("run_id")

        status = d.pop("status")

        href = d.pop("href")

        def _parse_planning(data: object) -> None | Planned | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                planning_type_1 = Planned.from_dict(data)



                return planning_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Planned | Unset, data)

        planning = _parse_planning(d.pop("planning", UNSET))


        accepted = cls(
            run_id=run_id,
            status=status,
            href=href,
            planning=planning,
        )


        accepted.additional_properties = d
        return accepted

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
