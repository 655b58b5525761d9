from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.callback_state import CallbackState
  from ..models.step_progress import StepProgress





T = TypeVar("T", bound="RunProgress")



@_attrs_define
class RunProgress:
    """ A run that is queued or running: the steps started so far.

        Example:
            {'run_id': 'qsbqxhbb', 'status': 'running', 'created_at': '2026-12-01T07:17:25.170Z', 'started_at':
                '2026-12-01T07:17:25.175Z', 'steps_total': 3, 'steps': [{'index': 0, 'type': 'navigate', 'describe': 'go to
                https://shop.example/', 'status': 'succeeded', 'duration_ms': 249, 'detail': {'url': 'https://shop.example/',
                'status': 200}}, {'index': 1, 'type': 'wait_seconds', 'describe': 'wait 2 s', 'status': 'running'}],
                'extracted': [], 'inbox_address': None, 'allowed_hosts': ['shop.example']}

        Attributes:
            run_id (str):
            status (str): `queued` (waiting for a slot) or `running`.
            created_at (str):
            steps_total (int):
            steps (list[StepProgress]): The steps started so far.
            extracted (list[str]):
            allowed_hosts (list[str]):
            started_at (None | str | Unset):
            inbox_address (None | str | Unset):
            plan (None | str | Unset):
            callback (CallbackState | None | Unset):
     """

    run_id: str
    status: str
    created_at: str
    steps_total: int
    steps: list[StepProgress]
    extracted: list[str]
    allowed_hosts: list[str]
    started_at: None | str | Unset = UNSET
    inbox_address: None | str | Unset = UNSET
    plan: None | str | Unset = UNSET
    callback: CallbackState | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.callback_state import CallbackState # noqa: PLC0415
        from ..models.step_progress import StepProgress # noqa: PLC0415
        run_id = self.run_id

        status = self.status

        created_at = self.created_at

        steps_total = self.steps_total

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)



        extracted = self.extracted



        allowed_hosts = self.allowed_hosts



        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        else:
            started_at = self.started_at

        inbox_address: None | str | Unset
        if isinstance(self.inbox_address, Unset):
            inbox_address = UNSET
        else:
            inbox_address = self.inbox_address

        plan: None | str | Unset
        if isinstance(self.plan, Unset):
            plan = UNSET
        else:
            plan = self.plan

        callback: dict[str, Any] | None | Unset
        if isinstance(self.callback, Unset):
            callback = UNSET
        elif isinstance(self.callback, CallbackState):
            callback = self.callback.to_dict()
        else:
            callback = self.callback


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "run_id": run_id,
            "status": status,
            "created_at": created_at,
            "steps_total": steps_total,
            "steps": steps,
            "extracted": extracted,
            "allowed_hosts": allowed_hosts,
        })
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if inbox_address is not UNSET:
            field_dict["inbox_address"] = inbox_address
        if plan is not UNSET:
            field_dict["plan"] = plan
        if callback is not UNSET:
            field_dict["callback"] = callback

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.callback_state import CallbackState # noqa: PLC0415
        from ..models.step_progress import StepProgress # noqa: PLC0415
        d = dict(src_dict)
        run_id = d.pop("run_id")

        status = d.pop("status")

        created_at = d.pop("created_at")

        steps_total = d.pop("steps_total")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            steps_item = StepProgress.from_dict(steps_item_data)



            steps.append(steps_item)


        extracted = cast(list[str], d.pop("extracted"))


        allowed_hosts = cast(list[str], d.pop("allowed_hosts"))


        def _parse_started_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))


        def _parse_inbox_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        inbox_address = _parse_inbox_address(d.pop("inbox_address", UNSET))


        def _parse_plan(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        plan = _parse_plan(d.pop("plan", UNSET))


        def _parse_callback(data: object) -> CallbackState | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                callback_type_1 = CallbackState.from_dict(data)



                return callback_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CallbackState | None | Unset, data)

        callback = _parse_callback(d.pop("callback", UNSET))


        run_progress = cls(
            run_id=run_id,
            status=status,
            created_at=created_at,
            steps_total=steps_total,
            steps=steps,
            extracted=extracted,
            allowed_hosts=allowed_hosts,
            started_at=started_at,
            inbox_address=inbox_address,
            plan=plan,
            callback=callback,
        )


        run_progress.additional_properties = d
        return run_progress

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
