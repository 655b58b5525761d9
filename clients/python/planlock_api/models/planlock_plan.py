from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.question import Question
  from ..models.step_type_0 import StepType0
  from ..models.step_type_1 import StepType1
  from ..models.step_type_2 import StepType2
  from ..models.step_type_3 import StepType3
  from ..models.step_type_4 import StepType4
  from ..models.step_type_5 import StepType5
  from ..models.step_type_6 import StepType6
  from ..models.step_type_7 import StepType7
  from ..models.step_type_8 import StepType8
  from ..models.step_type_9 import StepType9





T = TypeVar("T", bound="PlanlockPlan")



@_attrs_define
class PlanlockPlan:
    """ A plan: why, then what, in order. Produced by the planner or written by hand.

        Attributes:
            reasoning (str): Why these steps reach the goal. Informational only.
            steps (list[StepType0 | StepType1 | StepType2 | StepType3 | StepType4 | StepType5 | StepType6 | StepType7 |
                StepType8 | StepType9]): The steps, run in order. Must end with `done`.
            schema (None | str | Unset): Optional link to this schema, so editors can autocomplete plans.
            questions (list[Question] | Unset): Values the goal did not give that the page asks for, each a `{{var}}` of the
                plan
                with a question and a suggested answer (taken when nobody answers).
     """

    reasoning: str
    steps: list[StepType0 | StepType1 | StepType2 | StepType3 | StepType4 | StepType5 | StepType6 | StepType7 | StepType8 | StepType9]
    schema: None | str | Unset = UNSET
    questions: list[Question] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.question import Question # noqa: PLC0415
        from ..models.step_type_0 import StepType0 # noqa: PLC0415
        from ..models.step_type_1 import StepType1 # noqa: PLC0415
        from ..models.step_type_2 import StepType2 # noqa: PLC0415
        from ..models.step_type_3 import StepType3 # noqa: PLC0415
        from ..models.step_type_4 import StepType4 # noqa: PLC0415
        from ..models.step_type_5 import StepType5 # noqa: PLC0415
        from ..models.step_type_6 import StepType6 # noqa: PLC0415
        from ..models.step_type_7 import StepType7 # noqa: PLC0415
        from ..models.step_type_8 import StepType8 # noqa: PLC0415
        from ..models.step_type_9 import StepType9 # noqa: PLC0415
        reasoning = self.reasoning

        steps = []
        for steps_item_data in self.steps:
            steps_item: dict[str, Any]
            if isinstance(steps_item_data, StepType0):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType1):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType2):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType3):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType4):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType5):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType6):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType7):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, StepType8):
                steps_item = steps_item_data.to_dict()
            else:
                steps_item = steps_item_data.to_dict()

            steps.append(steps_item)



        schema: None | str | Unset
        if isinstance(self.schema, Unset):
            schema = UNSET
        else:
            schema = self.schema

        questions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.questions, Unset):
            questions = []
            for questions_item_data in self.questions:
                questions_item = questions_item_data.to_dict()
                questions.append(questions_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "reasoning": reasoning,
            "steps": steps,
        })
        if schema is not UNSET:
            field_dict["$schema"] = schema
        if questions is not UNSET:
            field_dict["questions"] = questions

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.question import Question # noqa: PLC0415
        from ..models.step_type_0 import StepType0 # noqa: PLC0415
        from ..models.step_type_1 import StepType1 # noqa: PLC0415
        from ..models.step_type_2 import StepType2 # noqa: PLC0415
        from ..models.step_type_3 import StepType3 # noqa: PLC0415
        from ..models.step_type_4 import StepType4 # noqa: PLC0415
        from ..models.step_type_5 import StepType5 # noqa: PLC0415
        from ..models.step_type_6 import StepType6 # noqa: PLC0415
        from ..models.step_type_7 import StepType7 # noqa: PLC0415
        from ..models.step_type_8 import StepType8 # noqa: PLC0415
        from ..models.step_type_9 import StepType9 # noqa: PLC0415
        d = dict(src_dict)
        reasoning = d.pop("reasoning")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            def _parse_steps_item(data: object) -> StepType0 | StepType1 | StepType2 | StepType3 | StepType4 | StepType5 | StepType6 | StepType7 | StepType8 | StepType9:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_0 = StepType0.from_dict(data)



                    return componentsschemas_step_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_1 = StepType1.from_dict(data)



                    return componentsschemas_step_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_2 = StepType2.from_dict(data)



                    return componentsschemas_step_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_3 = StepType3.from_dict(data)



                    return componentsschemas_step_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_4 = StepType4.from_dict(data)



                    return componentsschemas_step_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_5 = StepType5.from_dict(data)



                    return componentsschemas_step_type_5
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_6 = StepType6.from_dict(data)



                    return componentsschemas_step_type_6
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_7 = StepType7.from_dict(data)



                    return componentsschemas_step_type_7
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_8 = StepType8.from_dict(data)



                    return componentsschemas_step_type_8
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_step_type_9 = StepType9.from_dict(data)



                return componentsschemas_step_type_9

            steps_item = _parse_steps_item(steps_item_data)

            steps.append(steps_item)


        def _parse_schema(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        schema = _parse_schema(d.pop("$schema", UNSET))


        _questions = d.pop("questions", UNSET)
        questions: list[Question] | Unset = UNSET
        if _questions is not UNSET:
            questions = []
            for questions_item_data in _questions:
                questions_item = Question.from_dict(questions_item_data)



                questions.append(questions_item)


        planlock_plan = cls(
            reasoning=reasoning,
            steps=steps,
            schema=schema,
            questions=questions,
        )

        return planlock_plan

