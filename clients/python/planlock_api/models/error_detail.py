from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.api_error_kind import ApiErrorKind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.problem import Problem





T = TypeVar("T", bound="ErrorDetail")



@_attrs_define
class ErrorDetail:
    """ 
        Attributes:
            kind (ApiErrorKind): What went wrong, for programs: the `kind` of every error answer, of the HTTP API and of
                the MCP tools alike. A kind always comes with the same HTTP status.

                Each operation lists the kinds it answers under their statuses. No operation answers these: `method_not_allowed`
                (405), e.g. "/v1/runs does not take PUT: the endpoints are listed at /openapi.json"; `cancelled` (422), e.g.
                "the question for {{email}} was dismissed, so nothing ran".
            message (str): A sentence for people.
            problems (list[Problem] | None | Unset): Every problem of an invalid plan, each with its JSON path.
     """

    kind: ApiErrorKind
    message: str
    problems: list[Problem] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.problem import Problem # noqa: PLC0415
        kind = self.kind.value

        message = self.message

        problems: list[dict[str, Any]] | None | Unset
        if isinstance(self.problems, Unset):
            problems = UNSET
        elif isinstance(self.problems, list):
            problems = []
            for problems_type_0_item_data in self.problems:
                problems_type_0_item = problems_type_0_item_data.to_dict()
                problems.append(problems_type_0_item)


        else:
            problems = self.problems


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "kind": kind,
            "message": message,
        })
        if problems is not UNSET:
            field_dict["problems"] = problems

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.problem import Problem # noqa: PLC0415
        d = dict(src_dict)
        kind = ApiErrorKind(d.pop("kind"))




        message = d.pop("message")

        def _parse_problems(data: object) -> list[Problem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                problems_type_0 = []
                _problems_type_0 = data
                for problems_type_0_item_data in (_problems_type_0):
                    problems_type_0_item = Problem.from_dict(problems_type_0_item_data)



                    problems_type_0.append(problems_type_0_item)

                return problems_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Problem] | None | Unset, data)

        problems = _parse_problems(d.pop("problems", UNSET))


        error_detail = cls(
            kind=kind,
            message=message,
            problems=problems,
        )


        error_detail.additional_properties = d
        return error_detail

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
