from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.candidate import Candidate





T = TypeVar("T", bound="Located")



@_attrs_define
class Located:
    """ The element a step acted on, how it was found, and how it was chosen among others.

        Attributes:
            strategy (str | Unset): How it was found: `text`, `text-substring`, `label`, `aria-label`,
                `aria-labelledby`, `placeholder`, `selector`, `split` (code boxes), `fallback`.
                (Optional in the API's schema: these fields are a step detail's only when it located.)
            element (None | str | Unset): The element as `<tag#id> "text"`.
            x (float | None | Unset): Where it was clicked, in CSS pixels of the viewport.
            y (float | None | Unset):
            candidates (int | None | Unset): How many visible elements matched.
            decided_by (None | str | Unset): The ranking rule that set the chosen element apart from the next one.
            ambiguous (bool | None | Unset): The top two stayed tied under every rule but document order.
            runners_up (list[Candidate] | Unset): The next candidates in rank order.
            chosen (Candidate | None | Unset):
            passed_over (list[Candidate] | Unset): What a submitting step did not click: the texts it matched that are no
                control (a
                heading) or links away from the form this run was filling, and the form's other submit
                buttons (`form_submit` pressed that form's one submit control, `implicit_submit` its
                default button, as Enter would).
            hidden (int | None | Unset): Matches that were not visible.
            behind_modal (int | None | Unset): Matches behind an open modal dialog, or inert.
            covered (int | None | Unset): Matches something else covered where a click would land (a person could not click
                them).
            locate_ms (float | None | Unset): Milliseconds the locator spent choosing (for benchmarks).
            fallback (None | str | Unset): What marked the code field when the step's selector matched none
                (`autocomplete`, `name`, `boxes`).
            boxes (int | None | Unset): Split code boxes filled.
            form (None | str | Unset): How a code was typed: `as shown` or `compact` (without its separator).
            key (None | str | Unset): The key pressed in the field this run filled instead of a click (`Enter`: implicit
                submission by a default button the page hides).
     """

    strategy: str | Unset = UNSET
    element: None | str | Unset = UNSET
    x: float | None | Unset = UNSET
    y: float | None | Unset = UNSET
    candidates: int | None | Unset = UNSET
    decided_by: None | str | Unset = UNSET
    ambiguous: bool | None | Unset = UNSET
    runners_up: list[Candidate] | Unset = UNSET
    chosen: Candidate | None | Unset = UNSET
    passed_over: list[Candidate] | Unset = UNSET
    hidden: int | None | Unset = UNSET
    behind_modal: int | None | Unset = UNSET
    covered: int | None | Unset = UNSET
    locate_ms: float | None | Unset = UNSET
    fallback: None | str | Unset = UNSET
    boxes: int | None | Unset = UNSET
    form: None | str | Unset = UNSET
    key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.candidate import Candidate # noqa: PLC0415
        strategy = self.strategy

        element: None | str | Unset
        if isinstance(self.element, Unset):
            element = UNSET
        else:
            element = self.element

        x: float | None | Unset
        if isinstance(self.x, Unset):
            x = UNSET
        else:
            x = self.x

        y: float | None | Unset
        if isinstance(self.y, Unset):
            y = UNSET
        else:
            y = self.y

        candidates: int | None | Unset
        if isinstance(self.candidates, Unset):
            candidates = UNSET
        else:
            candidates = self.candidates

        decided_by: None | str | Unset
        if isinstance(self.decided_by, Unset):
            decided_by = UNSET
        else:
            decided_by = self.decided_by

        ambiguous: bool | None | Unset
        if isinstance(self.ambiguous, Unset):
            ambiguous = UNSET
        else:
            ambiguous = self.ambiguous

        runners_up: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.runners_up, Unset):
            runners_up = []
            for runners_up_item_data in self.runners_up:
                runners_up_item = runners_up_item_data.to_dict()
                runners_up.append(runners_up_item)



        chosen: dict[str, Any] | None | Unset
        if isinstance(self.chosen, Unset):
            chosen = UNSET
        elif isinstance(self.chosen, Candidate):
            chosen = self.chosen.to_dict()
        else:
            chosen = self.chosen

        passed_over: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.passed_over, Unset):
            passed_over = []
            for passed_over_item_data in self.passed_over:
                passed_over_item = passed_over_item_data.to_dict()
                passed_over.append(passed_over_item)



        hidden: int | None | Unset
        if isinstance(self.hidden, Unset):
            hidden = UNSET
        else:
            hidden = self.hidden

        behind_modal: int | None | Unset
        if isinstance(self.behind_modal, Unset):
            behind_modal = UNSET
        else:
            behind_modal = self.behind_modal

        covered: int | None | Unset
        if isinstance(self.covered, Unset):
            covered = UNSET
        else:
            covered = self.covered

        locate_ms: float | None | Unset
        if isinstance(self.locate_ms, Unset):
            locate_ms = UNSET
        else:
            locate_ms = self.locate_ms

        fallback: None | str | Unset
        if isinstance(self.fallback, Unset):
            fallback = UNSET
        else:
            fallback = self.fallback

        boxes: int | None | Unset
        if isinstance(self.boxes, Unset):
            boxes = UNSET
        else:
            boxes = self.boxes

        form: None | str | Unset
        if isinstance(self.form, Unset):
            form = UNSET
        else:
            form = self.form

        key: None | str | Unset
        if isinstance(self.key, Unset):
            key = UNSET
        else:
            key = self.key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if strategy is not UNSET:
            field_dict["strategy"] = strategy
        if element is not UNSET:
            field_dict["element"] = element
        if x is not UNSET:
            field_dict["x"] = x
        if y is not UNSET:
            field_dict["y"] = y
        if candidates is not UNSET:
            field_dict["candidates"] = candidates
        if decided_by is not UNSET:
            field_dict["decided_by"] = decided_by
        if ambiguous is not UNSET:
            field_dict["ambiguous"] = ambiguous
        if runners_up is not UNSET:
            field_dict["runners_up"] = runners_up
        if chosen is not UNSET:
            field_dict["chosen"] = chosen
        if passed_over is not UNSET:
            field_dict["passed_over"] = passed_over
        if hidden is not UNSET:
            field_dict["hidden"] = hidden
        if behind_modal is not UNSET:
            field_dict["behind_modal"] = behind_modal
        if covered is not UNSET:
            field_dict["covered"] = covered
        if locate_ms is not UNSET:
            field_dict["locate_ms"] = locate_ms
        if fallback is not UNSET:
            field_dict["fallback"] = fallback
        if boxes is not UNSET:
            field_dict["boxes"] = boxes
        if form is not UNSET:
            field_dict["form"] = form
        if key is not UNSET:
            field_dict["key"] = key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.candidate import Candidate # noqa: PLC0415
        d = dict(src_dict)
        strategy = d.pop("strategy", UNSET)

        def _parse_element(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        element = _parse_element(d.pop("element", UNSET))


        def _parse_x(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        x = _parse_x(d.pop("x", UNSET))


        def _parse_y(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        y = _parse_y(d.pop("y", UNSET))


        def _parse_candidates(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        candidates = _parse_candidates(d.pop("candidates", UNSET))


        def _parse_decided_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        decided_by = _parse_decided_by(d.pop("decided_by", UNSET))


        def _parse_ambiguous(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        ambiguous = _parse_ambiguous(d.pop("ambiguous", UNSET))


        _runners_up = d.pop("runners_up", UNSET)
        runners_up: list[Candidate] | Unset = UNSET
        if _runners_up is not UNSET:
            runners_up = []
            for runners_up_item_data in _runners_up:
                runners_up_item = Candidate.from_dict(runners_up_item_data)



                runners_up.append(runners_up_item)


        def _parse_chosen(data: object) -> Candidate | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                chosen_type_1 = Candidate.from_dict(data)



                return chosen_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Candidate | None | Unset, data)

        chosen = _parse_chosen(d.pop("chosen", UNSET))


        _passed_over = d.pop("passed_over", UNSET)
        passed_over: list[Candidate] | Unset = UNSET
        if _passed_over is not UNSET:
            passed_over = []
            for passed_over_item_data in _passed_over:
                passed_over_item = Candidate.from_dict(passed_over_item_data)



                passed_over.append(passed_over_item)


        def _parse_hidden(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        hidden = _parse_hidden(d.pop("hidden", UNSET))


        def _parse_behind_modal(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        behind_modal = _parse_behind_modal(d.pop("behind_modal", UNSET))


        def _parse_covered(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        covered = _parse_covered(d.pop("covered", UNSET))


        def _parse_locate_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        locate_ms = _parse_locate_ms(d.pop("locate_ms", UNSET))


        def _parse_fallback(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fallback = _parse_fallback(d.pop("fallback", UNSET))


        def _parse_boxes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        boxes = _parse_boxes(d.pop("boxes", UNSET))


        def _parse_form(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        form = _parse_form(d.pop("form", UNSET))


        def _parse_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key = _parse_key(d.pop("key", UNSET))


        located = cls(
            strategy=strategy,
            element=element,
            x=x,
            y=y,
            candidates=candidates,
            decided_by=decided_by,
            ambiguous=ambiguous,
            runners_up=runners_up,
            chosen=chosen,
            passed_over=passed_over,
            hidden=hidden,
            behind_modal=behind_modal,
            covered=covered,
            locate_ms=locate_ms,
            fallback=fallback,
            boxes=boxes,
            form=form,
            key=key,
        )


        located.additional_properties = d
        return located

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
