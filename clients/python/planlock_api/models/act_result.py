from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.run_status import RunStatus
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.planned import Planned
  from ..models.step_error import StepError
  from ..models.step_outcome import StepOutcome
  from ..models.warning import Warning_





T = TypeVar("T", bound="ActResult")



@_attrs_define
class ActResult:
    """ The result of `POST /v1/act`: a run result with the planning.

        Attributes:
            run_id (str):
            status (RunStatus): How a run ended.
            summary (str):
            steps (list[StepOutcome]):
            extracted (list[str]):
            duration_ms (int):
            allowed_hosts (list[str]): The sites the plan lock allowed.
            planning (Planned): A plan made from a goal, as callers see it (no server paths).
            failed_step (int | None | Unset):
            error (None | StepError | Unset):
            inbox_address (None | str | Unset):
            refused (int | Unset): Requests the lock refused during the run (each one is blocked; the first one that
                happened during a step fails it).
            plan (None | str | Unset): The plan's file or name, when it has one.
            warnings (list[Warning_] | Unset): Steps that failed without ending the run (`should` and `could` steps).
     """

    run_id: str
    status: RunStatus
    summary: str
    steps: list[StepOutcome]
    extracted: list[str]
    duration_ms: int
    allowed_hosts: list[str]
    planning: Planned
    failed_step: int | None | Unset = UNSET
    error: None | StepError | Unset = UNSET
    inbox_address: None | str | Unset = UNSET
    refused: int | Unset = UNSET
    plan: None | str | Unset = UNSET
    warnings: list[Warning_] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.planned import Planned # noqa: PLC0415
        from ..models.step_error import StepError # noqa: PLC0415
        from ..models.step_outcome import StepOutcome # noqa: PLC0415
        from ..models.warning import Warning_ # noqa: PLC0415
        run_id = self.run_id

        status = self.status.value

        summary = self.summary

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)



        extracted = self.extracted



        duration_ms = self.duration_ms

        allowed_hosts = self.allowed_hosts



        planning = self.planning.to_dict()

        failed_step: int | None | Unset
        if isinstance(self.failed_step, Unset):
            failed_step = UNSET
        else:
            failed_step = self.failed_step

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, StepError):
            error = self.error.to_dict()
        else:
            error = self.error

        inbox_address: None | str | Unset
        if isinstance(self.inbox_address, Unset):
            inbox_address = UNSET
        else:
            inbox_address = self.inbox_address

        refused = self.refused

        plan: None | str | Unset
        if isinstance(self.plan, Unset):
            plan = UNSET
        else:
            plan = self.plan

        warnings: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = []
            for warnings_item_data in self.warnings:
                warnings_item = warnings_item_data.to_dict()
                warnings.append(warnings_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "run_id": run_id,
            "status": status,
            "summary": summary,
            "steps": steps,
            "extracted": extracted,
            "duration_ms": duration_ms,
            "allowed_hosts": allowed_hosts,
            "planning": planning,
        })
        if failed_step is not UNSET:
            field_dict["failed_step"] = failed_step
        if error is not UNSET:
            field_dict["error"] = error
        if inbox_address is not UNSET:
            field_dict["inbox_address"] = inbox_address
        if refused is not UNSET:
            field_dict["refused"] = refused
        if plan is not UNSET:
            field_dict["plan"] = plan
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.planned import Planned # noqa: PLC0415
        from ..models.step_error import StepError # noqa: PLC0415
        from ..models.step_outcome import StepOutcome # noqa: PLC0415
        from ..models.warning import Warning_ # noqa: PLC0415
        d = dict(src_dict)
        run_id = d.pop("run_id")

        status = RunStatus(d.pop("status"))




        summary = d.pop("summary")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            steps_item = StepOutcome.from_dict(steps_item_data)



            steps.append(steps_item)


        extracted = cast(list[str], d.pop("extracted"))


        duration_ms = d.pop("duration_ms")

        allowed_hosts = cast(list[str], d.pop("allowed_hosts"))


        planning = Planned.from_dict(d.pop("planning"))




        def _parse_failed_step(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        failed_step = _parse_failed_step(d.pop("failed_step", UNSET))


        def _parse_error(data: object) -> None | StepError | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = StepError.from_dict(data)



                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StepError | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_inbox_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        inbox_address = _parse_inbox_address(d.pop("inbox_address", UNSET))


        refused = d.pop("refused", UNSET)

        def _parse_plan(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        plan = _parse_plan(d.pop("plan", UNSET))


        _warnings = d.pop("warnings", UNSET)
        warnings: list[Warning_] | Unset = UNSET
        if _warnings is not UNSET:
            warnings = []
            for warnings_item_data in _warnings:
                warnings_item = Warning_.from_dict(warnings_item_data)



                warnings.append(warnings_item)


        act_result = cls(
            run_id=run_id,
            status=status,
            summary=summary,
            steps=steps,
            extracted=extracted,
            duration_ms=duration_ms,
            allowed_hosts=allowed_hosts,
            planning=planning,
            failed_step=failed_step,
            error=error,
            inbox_address=inbox_address,
            refused=refused,
            plan=plan,
            warnings=warnings,
        )


        act_result.additional_properties = d
        return act_result

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
