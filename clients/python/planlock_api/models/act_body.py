from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.act_body_look_type_1 import ActBodyLookType1
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.act_body_secrets import ActBodySecrets
  from ..models.act_body_vars import ActBodyVars





T = TypeVar("T", bound="ActBody")



@_attrs_define
class ActBody:
    """ `POST /v1/act`: a goal to plan, then run.

        Example:
            {'goal': 'sign up at https://shop.example with {{inbox_address}} and verify the email', 'inbox': 'support',
                'secrets': {'SHOP_PASSWORD': 'correct horse'}}

        Attributes:
            goal (str): What to do, naming the site.
            vars_ (ActBodyVars | Unset): Caller variables for `{{NAME}}` (a model learns only their names).
            secrets (ActBodySecrets | Unset): Values for `{{secret.NAME}}` (the key is NAME), masked in every answer.
            inbox (list[str] | str | Unset): The inboxes to bind: `NAME` of a server inbox (the default one), `BINDING=NAME`
                for `inbox_id`, a mailbox URL if the server takes them, or a list.
            allowed_hosts (list[str] | Unset): More hosts the run may visit; private addresses (localhost, 10.x) only if
                listed.
            no_cache (bool | Unset): Ask the model even if a cached plan exists.
            callback_url (None | str | Unset): Where to POST the result, signed, when the run ends. Example:
                https://hooks.example.com/planlock.
            strict (bool | Unset): A failed `should` step fails the run, as a `must` step does.
            look (ActBodyLookType1 | bool | None | Unset): `true` (the default): look at the start page first; `false`: no
                page text reaches the model; `"required"`: an error when the page cannot be read.
     """

    goal: str
    vars_: ActBodyVars | Unset = UNSET
    secrets: ActBodySecrets | Unset = UNSET
    inbox: list[str] | str | Unset = UNSET
    allowed_hosts: list[str] | Unset = UNSET
    no_cache: bool | Unset = UNSET
    callback_url: None | str | Unset = UNSET
    strict: bool | Unset = UNSET
    look: ActBodyLookType1 | bool | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.act_body_secrets import ActBodySecrets # noqa: PLC0415
        from ..models.act_body_vars import ActBodyVars # noqa: PLC0415
        goal = self.goal

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



        no_cache = self.no_cache

        callback_url: None | str | Unset
        if isinstance(self.callback_url, Unset):
            callback_url = UNSET
        else:
            callback_url = self.callback_url

        strict = self.strict

        look: bool | None | str | Unset
        if isinstance(self.look, Unset):
            look = UNSET
        elif isinstance(self.look, ActBodyLookType1):
            look = self.look.value
        else:
            look = self.look


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "goal": goal,
        })
        if vars_ is not UNSET:
            field_dict["vars"] = vars_
        if secrets is not UNSET:
            field_dict["secrets"] = secrets
        if inbox is not UNSET:
            field_dict["inbox"] = inbox
        if allowed_hosts is not UNSET:
            field_dict["allowed_hosts"] = allowed_hosts
        if no_cache is not UNSET:
            field_dict["no_cache"] = no_cache
        if callback_url is not UNSET:
            field_dict["callback_url"] = callback_url
        if strict is not UNSET:
            field_dict["strict"] = strict
        if look is not UNSET:
            field_dict["look"] = look

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.act_body_secrets import ActBodySecrets # noqa: PLC0415
        from ..models.act_body_vars import ActBodyVars # noqa: PLC0415
        d = dict(src_dict)
        goal = d.pop("goal")

        _vars_ = d.pop("vars", UNSET)
        vars_: ActBodyVars | Unset
        if isinstance(_vars_,  Unset):
            vars_ = UNSET
        else:
            vars_ = ActBodyVars.from_dict(_vars_)




        _secrets = d.pop("secrets", UNSET)
        secrets: ActBodySecrets | Unset
        if isinstance(_secrets,  Unset):
            secrets = UNSET
        else:
            secrets = ActBodySecrets.from_dict(_secrets)




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


        no_cache = d.pop("no_cache", UNSET)

        def _parse_callback_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        callback_url = _parse_callback_url(d.pop("callback_url", UNSET))


        strict = d.pop("strict", UNSET)

        def _parse_look(data: object) -> ActBodyLookType1 | bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                look_type_1 = ActBodyLookType1(data)



                return look_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActBodyLookType1 | bool | None | Unset, data)

        look = _parse_look(d.pop("look", UNSET))


        act_body = cls(
            goal=goal,
            vars_=vars_,
            secrets=secrets,
            inbox=inbox,
            allowed_hosts=allowed_hosts,
            no_cache=no_cache,
            callback_url=callback_url,
            strict=strict,
            look=look,
        )

        return act_body

