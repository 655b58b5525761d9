from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="StepType7")



@_attrs_define
class StepType7:
    """ Open the verification or magic link from the remembered (or next) message.

        Attributes:
            type_ (Literal['open_link_from_inbox']):
            inbox_id (None | str | Unset): Named inbox; the default inbox when absent.
            from_ (None | str | Unset): The sender's domain (`shop.example`, which also matches its subdomains) or
                address (`no-reply@shop.example`); never the display name.
            describe (None | str | Unset): Which link of the email, in words (`the link to set a password`): its words rank
                the mail's links. Never makes a link that undoes something (cancel, unsubscribe…)
                eligible.
            timeout_seconds (float | None | Unset): Deadline in seconds (default 120).
            criticality (Literal['could'] | Literal['must'] | Literal['should'] | None | Unset): What a failure of this step
                means: `must` (default) ends the run, `should` and
                `could` are recorded as warnings (`should` asks at a terminal).
     """

    type_: Literal['open_link_from_inbox']
    inbox_id: None | str | Unset = UNSET
    from_: None | str | Unset = UNSET
    describe: None | str | Unset = UNSET
    timeout_seconds: float | None | Unset = UNSET
    criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        inbox_id: None | str | Unset
        if isinstance(self.inbox_id, Unset):
            inbox_id = UNSET
        else:
            inbox_id = self.inbox_id

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        describe: None | str | Unset
        if isinstance(self.describe, Unset):
            describe = UNSET
        else:
            describe = self.describe

        timeout_seconds: float | None | Unset
        if isinstance(self.timeout_seconds, Unset):
            timeout_seconds = UNSET
        else:
            timeout_seconds = self.timeout_seconds

        criticality: Literal['could'] | Literal['must'] | Literal['should'] | None | Unset
        if isinstance(self.criticality, Unset):
            criticality = UNSET
        else:
            criticality = self.criticality


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if inbox_id is not UNSET:
            field_dict["inbox_id"] = inbox_id
        if from_ is not UNSET:
            field_dict["from"] = from_
        if describe is not UNSET:
            field_dict["describe"] = describe
        if timeout_seconds is not UNSET:
            field_dict["timeout_seconds"] = timeout_seconds
        if criticality is not UNSET:
            field_dict["criticality"] = criticality

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['open_link_from_inbox'] , d.pop("type"))
        if type_ != 'open_link_from_inbox':
            raise ValueError(f"type must match const 'open_link_from_inbox', got '{type_}'")

        def _parse_inbox_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        inbox_id = _parse_inbox_id(d.pop("inbox_id", UNSET))


        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))


        def _parse_describe(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        describe = _parse_describe(d.pop("describe", UNSET))


        def _parse_timeout_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        timeout_seconds = _parse_timeout_seconds(d.pop("timeout_seconds", UNSET))


        def _parse_criticality(data: object) -> Literal['could'] | Literal['must'] | Literal['should'] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            componentsschemas_criticality_type_0 = cast(Literal['must'] , data)
            if componentsschemas_criticality_type_0 != 'must':
                raise ValueError(f"/components/schemas/Criticality_type_0 must match const 'must', got '{componentsschemas_criticality_type_0}'")
            return componentsschemas_criticality_type_0
            componentsschemas_criticality_type_1 = cast(Literal['should'] , data)
            if componentsschemas_criticality_type_1 != 'should':
                raise ValueError(f"/components/schemas/Criticality_type_1 must match const 'should', got '{componentsschemas_criticality_type_1}'")
            return componentsschemas_criticality_type_1
            componentsschemas_criticality_type_2 = cast(Literal['could'] , data)
            if componentsschemas_criticality_type_2 != 'could':
                raise ValueError(f"/components/schemas/Criticality_type_2 must match const 'could', got '{componentsschemas_criticality_type_2}'")
            return componentsschemas_criticality_type_2
            return cast(Literal['could'] | Literal['must'] | Literal['should'] | None | Unset, data)

        criticality = _parse_criticality(d.pop("criticality", UNSET))


        step_type_7 = cls(
            type_=type_,
            inbox_id=inbox_id,
            from_=from_,
            describe=describe,
            timeout_seconds=timeout_seconds,
            criticality=criticality,
        )

        return step_type_7

