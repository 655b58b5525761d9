from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Health")



@_attrs_define
class Health:
    """ `GET /healthz`

        Example:
            {'status': 'ok', 'version': '0.1.0', 'replica': 'web-1:8080', 'browser': 'ok', 'runs_in_flight': 1, 'max_runs':
                4, 'queue_depth': 0, 'queue_limit': 32}

        Attributes:
            status (str): `ok`, or `shutting_down`.
            version (str):
            replica (str): This replica's name in the run store.
            browser (str): `ok`, or why the browser is not usable.
            runs_in_flight (int):
            max_runs (int):
            queue_depth (int): Runs waiting for a slot.
            queue_limit (int):
     """

    status: str
    version: str
    replica: str
    browser: str
    runs_in_flight: int
    max_runs: int
    queue_depth: int
    queue_limit: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        status = self.status

        version = self.version

        replica = self.replica

        browser = self.browser

        runs_in_flight = self.runs_in_flight

        max_runs = self.max_runs

        queue_depth = self.queue_depth

        queue_limit = self.queue_limit


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "status": status,
            "version": version,
            "replica": replica,
            "browser": browser,
            "runs_in_flight": runs_in_flight,
            "max_runs": max_runs,
            "queue_depth": queue_depth,
            "queue_limit": queue_limit,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = d.pop("status")

        version = d.pop("version")

        replica = d.pop("replica")

        browser = d.pop("browser")

        runs_in_flight = d.pop("runs_in_flight")

        max_runs = d.pop("max_runs")

        queue_depth = d.pop("queue_depth")

        queue_limit = d.pop("queue_limit")

        health = cls(
            status=status,
            version=version,
            replica=replica,
            browser=browser,
            runs_in_flight=runs_in_flight,
            max_runs=max_runs,
            queue_depth=queue_depth,
            queue_limit=queue_limit,
        )


        health.additional_properties = d
        return health

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
