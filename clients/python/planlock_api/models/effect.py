from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.effect_kind import EffectKind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.answers import Answers





T = TypeVar("T", bound="Effect")



@_attrs_define
class Effect:
    """ What a click did, as the executor saw it in the short window after it: the evidence that
    the action happened. `did` is empty when nothing at all happened.

        Attributes:
            did (list[EffectKind] | Unset): Each kind of thing it did, strongest first.
            url (None | str | Unset): Where the page went (a navigation or a same-document one).
            requests (list[str] | Unset): The first requests the page sent (`POST http://…/api/login`).
            changes (list[str] | Unset): The first changes in the document (`added <div.alert> "wrong code"`).
            changed (int | None | Unset): How many changes in all.
            states (list[str] | Unset): Controls whose state changed (`checked of <input#terms>: false → true`; values are
                never quoted).
            focus (None | str | Unset): Where focus moved.
            dialog (None | str | Unset): The dialog the page opened: its type and message.
            sent (bool | None | Unset): Whether the form this run filled was sent: submitted, its data requested, or taken
                in
                (its field gone from view, what was typed shown back in new text). Absent when no field
                of this page was filled.
            after_ms (float | None | Unset): Milliseconds from the click to its first effect, as the page saw it.
            watched_ms (int | None | Unset): How long the executor watched a click that did nothing.
            answers (Answers | None | Unset):
     """

    did: list[EffectKind] | Unset = UNSET
    url: None | str | Unset = UNSET
    requests: list[str] | Unset = UNSET
    changes: list[str] | Unset = UNSET
    changed: int | None | Unset = UNSET
    states: list[str] | Unset = UNSET
    focus: None | str | Unset = UNSET
    dialog: None | str | Unset = UNSET
    sent: bool | None | Unset = UNSET
    after_ms: float | None | Unset = UNSET
    watched_ms: int | None | Unset = UNSET
    answers: Answers | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.answers import Answers # noqa: PLC0415
        did: list[str] | Unset = UNSET
        if not isinstance(self.did, Unset):
            did = []
            for did_item_data in self.did:
                did_item = did_item_data.value
                did.append(did_item)



        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        requests: list[str] | Unset = UNSET
        if not isinstance(self.requests, Unset):
            requests = self.requests



        changes: list[str] | Unset = UNSET
        if not isinstance(self.changes, Unset):
            changes = self.changes



        changed: int | None | Unset
        if isinstance(self.changed, Unset):
            changed = UNSET
        else:
            changed = self.changed

        states: list[str] | Unset = UNSET
        if not isinstance(self.states, Unset):
            states = self.states



        focus: None | str | Unset
        if isinstance(self.focus, Unset):
            focus = UNSET
        else:
            focus = self.focus

        dialog: None | str | Unset
        if isinstance(self.dialog, Unset):
            dialog = UNSET
        else:
            dialog = self.dialog

        sent: bool | None | Unset
        if isinstance(self.sent, Unset):
            sent = UNSET
        else:
            sent = self.sent

        after_ms: float | None | Unset
        if isinstance(self.after_ms, Unset):
            after_ms = UNSET
        else:
            after_ms = self.after_ms

        watched_ms: int | None | Unset
        if isinstance(self.watched_ms, Unset):
            watched_ms = UNSET
        else:
            watched_ms = self.watched_ms

        answers: dict[str, Any] | None | Unset
        if isinstance(self.answers, Unset):
            answers = UNSET
        elif isinstance(self.answers, Answers):
            answers = self.answers.to_dict()
        else:
            answers = self.answers


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if did is not UNSET:
            field_dict["did"] = did
        if url is not UNSET:
            field_dict["url"] = url
        if requests is not UNSET:
            field_dict["requests"] = requests
        if changes is not UNSET:
            field_dict["changes"] = changes
        if changed is not UNSET:
            field_dict["changed"] = changed
        if states is not UNSET:
            field_dict["states"] = states
        if focus is not UNSET:
            field_dict["focus"] = focus
        if dialog is not UNSET:
            field_dict["dialog"] = dialog
        if sent is not UNSET:
            field_dict["sent"] = sent
        if after_ms is not UNSET:
            field_dict["after_ms"] = after_ms
        if watched_ms is not UNSET:
            field_dict["watched_ms"] = watched_ms
        if answers is not UNSET:
            field_dict["answers"] = answers

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.answers import Answers # noqa: PLC0415
        d = dict(src_dict)
        _did = d.pop("did", UNSET)
        did: list[EffectKind] | Unset = UNSET
        if _did is not UNSET:
            did = []
            for did_item_data in _did:
                did_item = EffectKind(did_item_data)



                did.append(did_item)


        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        requests = cast(list[str], d.pop("requests", UNSET))


        changes = cast(list[str], d.pop("changes", UNSET))


        def _parse_changed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        changed = _parse_changed(d.pop("changed", UNSET))


        states = cast(list[str], d.pop("states", UNSET))


        def _parse_focus(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        focus = _parse_focus(d.pop("focus", UNSET))


        def _parse_dialog(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        dialog = _parse_dialog(d.pop("dialog", UNSET))


        def _parse_sent(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        sent = _parse_sent(d.pop("sent", UNSET))


        def _parse_after_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        after_ms = _parse_after_ms(d.pop("after_ms", UNSET))


        def _parse_watched_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        watched_ms = _parse_watched_ms(d.pop("watched_ms", UNSET))


        def _parse_answers(data: object) -> Answers | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                answers_type_1 = Answers.from_dict(data)



                return answers_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Answers | None | Unset, data)

        answers = _parse_answers(d.pop("answers", UNSET))


        effect = cls(
            did=did,
            url=url,
            requests=requests,
            changes=changes,
            changed=changed,
            states=states,
            focus=focus,
            dialog=dialog,
            sent=sent,
            after_ms=after_ms,
            watched_ms=watched_ms,
            answers=answers,
        )


        effect.additional_properties = d
        return effect

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
