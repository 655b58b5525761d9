from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.plan_preview_request import PlanPreviewRequest





T = TypeVar("T", bound="PlanPreview")



@_attrs_define
class PlanPreview:
    """ `dry_run`: the exact request the model would get.

        Attributes:
            request (PlanPreviewRequest): The system prompt, the user message and the tool schema, as the provider takes
                them.
     """

    request: PlanPreviewRequest
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.plan_preview_request import PlanPreviewRequest # noqa: PLC0415
        request = self.request.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "request": request,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_preview_request import PlanPreviewRequest # noqa: PLC0415
        d = dict(src_dict)
        request = PlanPreviewRequest.from_dict(d.pop("request"))




        plan_preview = cls(
            request=request,
        )


        plan_preview.additional_properties = d
        return plan_preview

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
