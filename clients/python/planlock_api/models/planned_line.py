from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.planned_tag import PlannedTag
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.answer import Answer
  from ..models.looked import Looked
  from ..models.planlock_plan import PlanlockPlan
  from ..models.review import Review
  from ..models.usage import Usage





T = TypeVar("T", bound="PlannedLine")



@_attrs_define
class PlannedLine:
    """ The plan `POST /v1/act` made, streamed before the run's events.

        Attributes:
            plan (PlanlockPlan): A plan: why, then what, in order. Produced by the planner or written by hand.
            cached (bool): The plan came from the cache (no model call; usage all zeros).
            usage (Usage): Tokens the one model request used (all zero on a cache hit). `input_tokens` counts input
                that was neither written to nor read from the provider's prompt cache.
            model (str):  Example: anthropic:claude-sonnet-4-5.
            prompt_version (str):
            goal (str): The goal as planned (runs of whitespace collapsed).
            site (str): The registrable domain of the first site the goal names.
            retries (int): Transport retries of the one request.
            warnings (list[str]):
            answers (list[Answer]): The plan's questions and the values the run gives them (the request's `vars`, else
                the suggestions).
            review (Review): The review of a plan before it runs: what each step does, where, what looks destructive
                or costly, and the lock the run will have. `text` is what `planlock act` prints; the
                other fields are the same review for programs (the HTTP API, MCP tools).
            event (PlannedTag): `planned`: the first line `POST /v1/act` streams.
            looked (Looked | None | Unset):
     """

    plan: PlanlockPlan
    cached: bool
    usage: Usage
    model: str
    prompt_version: str
    goal: str
    site: str
    retries: int
    warnings: list[str]
    answers: list[Answer]
    review: Review
    event: PlannedTag
    looked: Looked | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.answer import Answer # noqa: PLC0415
        from ..models.looked import Looked # noqa: PLC0415
        from ..models.planlock_plan import PlanlockPlan # noqa: PLC0415
        from ..models.review import Review # noqa: PLC0415
        from ..models.usage import Usage # noqa: PLC0415
        plan = self.plan.to_dict()

        cached = self.cached

        usage = self.usage.to_dict()

        model = self.model

        prompt_version = self.prompt_version

        goal = self.goal

        site = self.site

        retries = self.retries

        warnings = self.warnings



        answers = []
        for answers_item_data in self.answers:
            answers_item = answers_item_data.to_dict()
            answers.append(answers_item)



        review = self.review.to_dict()

        event = self.event.value

        looked: dict[str, Any] | None | Unset
        if isinstance(self.looked, Unset):
            looked = UNSET
        elif isinstance(self.looked, Looked):
            looked = self.looked.to_dict()
        else:
            looked = self.looked


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "plan": plan,
            "cached": cached,
            "usage": usage,
            "model": model,
            "prompt_version": prompt_version,
            "goal": goal,
            "site": site,
            "retries": retries,
            "warnings": warnings,
            "answers": answers,
            "review": review,
            "event": event,
        })
        if looked is not UNSET:
            field_dict["looked"] = looked

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.answer import Answer # noqa: PLC0415
        from ..models.looked import Looked # noqa: PLC0415
        from ..models.planlock_plan import PlanlockPlan # noqa: PLC0415
        from ..models.review import Review # noqa: PLC0415
        from ..models.usage import Usage # noqa: PLC0415
        d = dict(src_dict)
        plan = PlanlockPlan.from_dict(d.pop("plan"))




        cached = d.pop("cached")

        usage = Usage.from_dict(d.pop("usage"))




        model = d.pop("model")

        prompt_version = d.pop("prompt_version")

        goal = d.pop("goal")

        site = d.pop("site")

        retries = d.pop("retries")

        warnings = cast(list[str], d.pop("warnings"))


        answers = []
        _answers = d.pop("answers")
        for answers_item_data in (_answers):
            answers_item = Answer.from_dict(answers_item_data)



            answers.append(answers_item)


        review = Review.from_dict(d.pop("review"))




        event = PlannedTag(d.pop("event"))




        def _parse_looked(data: object) -> Looked | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                looked_type_1 = Looked.from_dict(data)



                return looked_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Looked | None | Unset, data)

        looked = _parse_looked(d.pop("looked", UNSET))


        planned_line = cls(
            plan=plan,
            cached=cached,
            usage=usage,
            model=model,
            prompt_version=prompt_version,
            goal=goal,
            site=site,
            retries=retries,
            warnings=warnings,
            answers=answers,
            review=review,
            event=event,
            looked=looked,
        )


        planned_line.additional_properties = d
        return planned_line

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
