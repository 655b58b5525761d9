from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Candidate")



@_attrs_define
class Candidate:
    """ One element that matched, as the ranking saw it.

        Attributes:
            element (None | str | Unset):
            tag (None | str | Unset):
            text (None | str | Unset):
            role (None | str | Unset): ARIA role, explicit or implicit (`link`, `button`, `tab`…).
            landmark (None | str | Unset): `main`, or the landmark it sits in: `nav`, `header`, `footer`, `aside` (or their
                ARIA
                roles).
            form (None | str | Unset): The form it belongs to, e.g. `form#signup`.
            submits (bool | None | Unset): It submits its form.
            in_filled_form (bool | None | Unset): It belongs to the form of the field this run filled last.
            covered (bool | None | Unset): A person could not click it: something is on top where a click would land (a
                dialog's
                backdrop, a banner), named in `covered_by`.
            covered_by (None | str | Unset): What is on top where a click on it would land, e.g. `<div#signup.modal.fade>`.
            inert (bool | None | Unset): A person could not click it: the page made it `inert`.
     """

    element: None | str | Unset = UNSET
    tag: None | str | Unset = UNSET
    text: None | str | Unset = UNSET
    role: None | str | Unset = UNSET
    landmark: None | str | Unset = UNSET
    form: None | str | Unset = UNSET
    submits: bool | None | Unset = UNSET
    in_filled_form: bool | None | Unset = UNSET
    covered: bool | None | Unset = UNSET
    covered_by: None | str | Unset = UNSET
    inert: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        element: None | str | Unset
        if isinstance(self.element, Unset):
            element = UNSET
        else:
            element = self.element

        tag: None | str | Unset
        if isinstance(self.tag, Unset):
            tag = UNSET
        else:
            tag = self.tag

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        else:
            role = self.role

        landmark: None | str | Unset
        if isinstance(self.landmark, Unset):
            landmark = UNSET
        else:
            landmark = self.landmark

        form: None | str | Unset
        if isinstance(self.form, Unset):
            form = UNSET
        else:
            form = self.form

        submits: bool | None | Unset
        if isinstance(self.submits, Unset):
            submits = UNSET
        else:
            submits = self.submits

        in_filled_form: bool | None | Unset
        if isinstance(self.in_filled_form, Unset):
            in_filled_form = UNSET
        else:
            in_filled_form = self.in_filled_form

        covered: bool | None | Unset
        if isinstance(self.covered, Unset):
            covered = UNSET
        else:
            covered = self.covered

        covered_by: None | str | Unset
        if isinstance(self.covered_by, Unset):
            covered_by = UNSET
        else:
            covered_by = self.covered_by

        inert: bool | None | Unset
        if isinstance(self.inert, Unset):
            inert = UNSET
        else:
            inert = self.inert


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if element is not UNSET:
            field_dict["element"] = element
        if tag is not UNSET:
            field_dict["tag"] = tag
        if text is not UNSET:
            field_dict["text"] = text
        if role is not UNSET:
            field_dict["role"] = role
        if landmark is not UNSET:
            field_dict["landmark"] = landmark
        if form is not UNSET:
            field_dict["form"] = form
        if submits is not UNSET:
            field_dict["submits"] = submits
        if in_filled_form is not UNSET:
            field_dict["in_filled_form"] = in_filled_form
        if covered is not UNSET:
            field_dict["covered"] = covered
        if covered_by is not UNSET:
            field_dict["covered_by"] = covered_by
        if inert is not UNSET:
            field_dict["inert"] = inert

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_element(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        element = _parse_element(d.pop("element", UNSET))


        def _parse_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tag = _parse_tag(d.pop("tag", UNSET))


        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))


        def _parse_role(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        role = _parse_role(d.pop("role", UNSET))


        def _parse_landmark(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        landmark = _parse_landmark(d.pop("landmark", UNSET))


        def _parse_form(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        form = _parse_form(d.pop("form", UNSET))


        def _parse_submits(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        submits = _parse_submits(d.pop("submits", UNSET))


        def _parse_in_filled_form(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        in_filled_form = _parse_in_filled_form(d.pop("in_filled_form", UNSET))


        def _parse_covered(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        covered = _parse_covered(d.pop("covered", UNSET))


        def _parse_covered_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        covered_by = _parse_covered_by(d.pop("covered_by", UNSET))


        def _parse_inert(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        inert = _parse_inert(d.pop("inert", UNSET))


        candidate = cls(
            element=element,
            tag=tag,
            text=text,
            role=role,
            landmark=landmark,
            form=form,
            submits=submits,
            in_filled_form=in_filled_form,
            covered=covered,
            covered_by=covered_by,
            inert=inert,
        )


        candidate.additional_properties = d
        return candidate

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
