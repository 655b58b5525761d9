from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.plans_body_look_type_1 import PlansBodyLookType1
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.plans_body_vars import PlansBodyVars





T = TypeVar("T", bound="PlansBody")



@_attrs_define
class PlansBody:
    """ `POST /v1/plans`: a goal to plan; nothing runs.

        Example:
            {'goal': 'log in at shop.example with {{inbox_address}}', 'inbox': 'support'}

        Attributes:
            goal (str): What to do, naming the site.
            vars_ (PlansBodyVars | Unset): Caller variables for `{{NAME}}` (a model learns only their names).
            inbox (list[str] | str | Unset): The inboxes to bind: `NAME` of a server inbox (the default one), `BINDING=NAME`
                for `inbox_id`, a mailbox URL if the server takes them, or a list.
            allowed_hosts (list[str] | Unset): More hosts the run may visit; private addresses (localhost, 10.x) only if
                listed.
            no_cache (bool | Unset): Ask the model even if a cached plan exists.
            look (bool | None | PlansBodyLookType1 | Unset): `true` (the default): look at the start page first; `false`: no
                page text reaches the model; `"required"`: an error when the page cannot be read.
            dry_run (bool | Unset): Answer with the exact request the model would get (no model call, no key needed).
     """

    goal: str
    vars_: PlansBodyVars | Unset = UNSET
    inbox: list[str] | str | Unset = UNSET
    allowed_hosts: list[str] | Unset = UNSET
    no_cache: bool | Unset = UNSET
    look: bool | None | PlansBodyLookType1 | Unset = UNSET
    dry_run: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.plans_body_vars import PlansBodyVars # noqa: PLC0415
        goal = self.goal

        vars_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.vars_, Unset):
            vars_ = self.vars_.to_dict()

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

        look: bool | None | str | Unset
        if isinstance(self.look, Unset):
            look = UNSET
        elif isinstance(self.look, PlansBodyLookType1):
            look = self.look.value
        else:
            look = self.look

        dry_run = self.dry_run


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "goal": goal,
        })
        if vars_ is not UNSET:
            field_dict["vars"] = vars_
        if inbox is not UNSET:
            field_dict["inbox"] = inbox
        if allowed_hosts is not UNSET:
            field_dict["allowed_hosts"] = allowed_hosts
        if no_cache is not UNSET:
            field_dict["no_cache"] = no_cache
        if look is not UNSET:
            field_dict["look"] = look
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plans_body_vars import PlansBodyVars # noqa: PLC0415
        d = dict(src_dict)
        goal = d.pop("goal")

        _vars_ = d.pop("vars", UNSET)
        vars_: PlansBodyVars | Unset
        if isinstance(_vars_,  Unset):
            vars_ = UNSET
        else:
            vars_ = PlansBodyVars.from_dict(_vars_)




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

        def _parse_look(data: object) -> bool | None | PlansBodyLookType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                look_type_1 = PlansBodyLookType1(data)



                return look_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | None | PlansBodyLookType1 | Unset, data)

        look = _parse_look(d.pop("look", UNSET))


        dry_run = d.pop("dry_run", UNSET)

        plans_body = cls(
            goal=goal,
            vars_=vars_,
            inbox=inbox,
            allowed_hosts=allowed_hosts,
            no_cache=no_cache,
            look=look,
            dry_run=dry_run,
        )

        return plans_body

