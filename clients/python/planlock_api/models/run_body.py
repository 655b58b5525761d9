from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.planlock_plan import PlanlockPlan
  from ..models.run_body_secrets import RunBodySecrets
  from ..models.run_body_vars import RunBodyVars





T = TypeVar("T", bound="RunBody")



@_attrs_define
class RunBody:
    """ `POST /v1/runs`: a plan to replay.

        Example:
            {'plan': {'reasoning': '', 'steps': [{'type': 'navigate', 'url': 'https://shop.example/'}, {'type':
                'extract_text', 'describe': 'the price', 'selector': '#price'}, {'type': 'done', 'summary': 'read the price'}]},
                'inbox': 'support'}

        Attributes:
            plan (PlanlockPlan | str): The plan, or a string holding its JSON.
            vars_ (RunBodyVars | Unset): Caller variables for `{{NAME}}` (a model learns only their names).
            secrets (RunBodySecrets | Unset): Values for `{{secret.NAME}}` (the key is NAME), masked in every answer.
            inbox (list[str] | str | Unset): The inboxes to bind: `NAME` of a server inbox (the default one), `BINDING=NAME`
                for `inbox_id`, a mailbox URL if the server takes them, or a list.
            allowed_hosts (list[str] | Unset): More hosts the run may visit; private addresses (localhost, 10.x) only if
                listed.
            callback_url (None | str | Unset): Where to POST the result, signed, when the run ends. Example:
                https://hooks.example.com/planlock.
            strict (bool | Unset): A failed `should` step fails the run, as a `must` step does.
     """

    plan: PlanlockPlan | str
    vars_: RunBodyVars | Unset = UNSET
    secrets: RunBodySecrets | Unset = UNSET
    inbox: list[str] | str | Unset = UNSET
    allowed_hosts: list[str] | Unset = UNSET
    callback_url: None | str | Unset = UNSET
    strict: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.planlock_plan import PlanlockPlan # noqa: PLC0415
        from ..models.run_body_secrets import RunBodySecrets # noqa: PLC0415
        from ..models.run_body_vars import RunBodyVars # noqa: PLC0415
        plan: dict[str, Any] | str
        if isinstance(self.plan, PlanlockPlan):
            plan = self.plan.to_dict()
        else:
            plan = self.plan

        vars_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.vars_, Unset):
            vars_ = self.vars_.to_dict()

        secrets: dict[str, Any] | Unset = UNSET
        if not isinstance(self.secrets, Unset):
            secrets = self.secrets.to_dict()

        inbox: list[str] | str | Unset
        if isinstance(self.inbox, Unset):
            inbox = UNSET
        elif isinstance(self.inbox, list):
            inbox = self.inbox


        else:
            inbox = self.inbox

        allowed_hosts: list[str] | Unset = UNSET
        if not isinstance(self.allowed_hosts, Unset):
            allowed_hosts = self.allowed_hosts



        callback_url: None | str | Unset
        if isinstance(self.callback_url, Unset):
            callback_url = UNSET
        else:
            callback_url = self.callback_url

        strict = self.strict


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "plan": plan,
        })
        if vars_ is not UNSET:
            field_dict["vars"] = vars_
        if secrets is not UNSET:
            field_dict["secrets"] = secrets
        if inbox is not UNSET:
            field_dict["inbox"] = inbox
        if allowed_hosts is not UNSET:
            field_dict["allowed_hosts"] = allowed_hosts
        if callback_url is not UNSET:
            field_dict["callback_url"] = callback_url
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.planlock_plan import PlanlockPlan # noqa: PLC0415
        from ..models.run_body_secrets import RunBodySecrets # noqa: PLC0415
        from ..models.run_body_vars import RunBodyVars # noqa: PLC0415
        d = dict(src_dict)
        def _parse_plan(data: object) -> PlanlockPlan | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                plan_type_0 = PlanlockPlan.from_dict(data)



                return plan_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(PlanlockPlan | str, data)

        plan = _parse_plan(d.pop("plan"))


        _vars_ = d.pop("vars", UNSET)
        vars_: RunBodyVars | Unset
        if isinstance(_vars_,  Unset):
            vars_ = UNSET
        else:
            vars_ = RunBodyVars.from_dict(_vars_)




        _secrets = d.pop("secrets", UNSET)
        secrets: RunBodySecrets | Unset
        if isinstance(_secrets,  Unset):
            secrets = UNSET
        else:
            secrets = RunBodySecrets.from_dict(_secrets)




        def _parse_inbox(data: object) -> list[str] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                inbox_type_1 = cast(list[str], data)

                return inbox_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str | Unset, data)

        inbox = _parse_inbox(d.pop("inbox", UNSET))


        allowed_hosts = cast(list[str], d.pop("allowed_hosts", UNSET))


        def _parse_callback_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        callback_url = _parse_callback_url(d.pop("callback_url", UNSET))


        strict = d.pop("strict", UNSET)

        run_body = cls(
            plan=plan,
            vars_=vars_,
            secrets=secrets,
            inbox=inbox,
            allowed_hosts=allowed_hosts,
            callback_url=callback_url,
            strict=strict,
        )

        return run_body

