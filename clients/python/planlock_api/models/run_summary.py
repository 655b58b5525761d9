from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RunSummary")



@_attrs_define
class RunSummary:
    """ One run in a list.

        Attributes:
            run_id (str):
            status (str): `queued`, `running`, `succeeded`, `failed` or `cancelled`.
            created_at (str):
            steps_total (int):
            allowed_hosts (list[str]):
            href (str):
            started_at (None | str | Unset):
            finished_at (None | str | Unset):
            summary (None | str | Unset):
            plan (None | str | Unset):
     """

    run_id: str
    status: str
    created_at: str
    steps_total: int
    allowed_hosts: list[str]
    href: str
    started_at: None | str | Unset = UNSET
    finished_at: None | str | Unset = UNSET
    summary: None | str | Unset = UNSET
    plan: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        run_id = self.run_id

        status = self.status

        created_at = self.created_at

        steps_total = self.steps_total

        allowed_hosts = self.allowed_hosts



        href = self.href

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        else:
            started_at = self.started_at

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        else:
            finished_at = self.finished_at

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        plan: None | str | Unset
        if isinstance(self.plan, Unset):
            plan = UNSET
        else:
            plan = self.plan


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "run_id": run_id,
            "status": status,
            "created_at": created_at,
            "steps_total": steps_total,
            "allowed_hosts": allowed_hosts,
            "href": href,
        })
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if summary is not UNSET:
            field_dict["summary"] = summary
        if plan is not UNSET:
            field_dict["plan"] = plan

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        run_id = d.pop("run_id")

        status = d.pop("status")

        created_at = d.pop("created_at")

        steps_total = d.pop("steps_total")

        allowed_hosts = cast(list[str], d.pop("allowed_hosts"))


        href = d.pop("href")

        def _parse_started_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))


        def _parse_finished_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))


        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))


        def _parse_plan(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        plan = _parse_plan(d.pop("plan", UNSET))


        run_summary = cls(
            run_id=run_id,
            status=status,
            created_at=created_at,
            steps_total=steps_total,
            allowed_hosts=allowed_hosts,
            href=href,
            started_at=started_at,
            finished_at=finished_at,
            summary=summary,
            plan=plan,
        )


        run_summary.additional_properties = d
        return run_summary

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
