from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.answers import Answers
  from ..models.effect import Effect





T = TypeVar("T", bound="StepDetail")



@_attrs_define
class StepDetail:
    """ The facts of one step. Which fields are set depends on the step type; absent ones are
    left out of the JSON.

        Attributes:
            url (None | str | Unset): The page's URL after the step (`navigate`, an email's link, a failure).
            status (int | None | Unset): The HTTP status of the document a `navigate` loaded.
            same_document (bool | None | Unset): The URL only changed its fragment.
            navigation (None | str | Unset): Where a click sent the page.
            form_errors (list[str] | Unset): The error texts the page showed about the form a click submitted, once it came
                back.
            effect (Effect | None | Unset):
            answers (Answers | None | Unset):
            code (None | str | Unset): The one-time code, masked (`48••••`).
            link (None | str | Unset): The link an `open_link_from_inbox` chose.
            anchor_text (None | str | Unset):
            chosen_by (list[str] | Unset): How an inbox step chose its link or code among the mail's others: what the chosen
                one's
                text, sentence and address say, one phrase each (`its sentence says "set a password"`).
            describe_matched (list[str] | Unset): The words of `open_link_from_inbox`'s `describe` that the chosen link's
                words matched.
            text (None | str | Unset): `wait_for_text`: the text seen; `extract_text`: the text read.
            seconds (float | None | Unset): `wait_seconds`: how long.
            summary (None | str | Unset): `done`: the summary.
            screenshot (None | str | Unset): A screenshot of the page after the step (a file path; services give a URL
                instead).
            no_screenshot (None | str | Unset): Why a step that was to have a screenshot has none, in one sentence.
            timeout_ms (int | None | Unset): `step_started`: the step's deadline, in ms from its start.
            screenshot_url (None | str | Unset): Where a service serves that screenshot.
     """

    url: None | str | Unset = UNSET
    status: int | None | Unset = UNSET
    same_document: bool | None | Unset = UNSET
    navigation: None | str | Unset = UNSET
    form_errors: list[str] | Unset = UNSET
    effect: Effect | None | Unset = UNSET
    answers: Answers | None | Unset = UNSET
    code: None | str | Unset = UNSET
    link: None | str | Unset = UNSET
    anchor_text: None | str | Unset = UNSET
    chosen_by: list[str] | Unset = UNSET
    describe_matched: list[str] | Unset = UNSET
    text: None | str | Unset = UNSET
    seconds: float | None | Unset = UNSET
    summary: None | str | Unset = UNSET
    screenshot: None | str | Unset = UNSET
    no_screenshot: None | str | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET
    screenshot_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.answers import Answers # noqa: PLC0415
        from ..models.effect import Effect # noqa: PLC0415
        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        status: int | None | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        same_document: bool | None | Unset
        if isinstance(self.same_document, Unset):
            same_document = UNSET
        else:
            same_document = self.same_document

        navigation: None | str | Unset
        if isinstance(self.navigation, Unset):
            navigation = UNSET
        else:
            navigation = self.navigation

        form_errors: list[str] | Unset = UNSET
        if not isinstance(self.form_errors, Unset):
            form_errors = self.form_errors



        effect: dict[str, Any] | None | Unset
        if isinstance(self.effect, Unset):
            effect = UNSET
        elif isinstance(self.effect, Effect):
            effect = self.effect.to_dict()
        else:
            effect = self.effect

        answers: dict[str, Any] | None | Unset
        if isinstance(self.answers, Unset):
            answers = UNSET
        elif isinstance(self.answers, Answers):
            answers = self.answers.to_dict()
        else:
            answers = self.answers

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        link: None | str | Unset
        if isinstance(self.link, Unset):
            link = UNSET
        else:
            link = self.link

        anchor_text: None | str | Unset
        if isinstance(self.anchor_text, Unset):
            anchor_text = UNSET
        else:
            anchor_text = self.anchor_text

        chosen_by: list[str] | Unset = UNSET
        if not isinstance(self.chosen_by, Unset):
            chosen_by = self.chosen_by



        describe_matched: list[str] | Unset = UNSET
        if not isinstance(self.describe_matched, Unset):
            describe_matched = self.describe_matched



        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        seconds: float | None | Unset
        if isinstance(self.seconds, Unset):
            seconds = UNSET
        else:
            seconds = self.seconds

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        screenshot: None | str | Unset
        if isinstance(self.screenshot, Unset):
            screenshot = UNSET
        else:
            screenshot = self.screenshot

        no_screenshot: None | str | Unset
        if isinstance(self.no_screenshot, Unset):
            no_screenshot = UNSET
        else:
            no_screenshot = self.no_screenshot

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        screenshot_url: None | str | Unset
        if isinstance(self.screenshot_url, Unset):
            screenshot_url = UNSET
        else:
            screenshot_url = self.screenshot_url


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if url is not UNSET:
            field_dict["url"] = url
        if status is not UNSET:
            field_dict["status"] = status
        if same_document is not UNSET:
            field_dict["same_document"] = same_document
        if navigation is not UNSET:
            field_dict["navigation"] = navigation
        if form_errors is not UNSET:
            field_dict["form_errors"] = form_errors
        if effect is not UNSET:
            field_dict["effect"] = effect
        if answers is not UNSET:
            field_dict["answers"] = answers
        if code is not UNSET:
            field_dict["code"] = code
        if link is not UNSET:
            field_dict["link"] = link
        if anchor_text is not UNSET:
            field_dict["anchor_text"] = anchor_text
        if chosen_by is not UNSET:
            field_dict["chosen_by"] = chosen_by
        if describe_matched is not UNSET:
            field_dict["describe_matched"] = describe_matched
        if text is not UNSET:
            field_dict["text"] = text
        if seconds is not UNSET:
            field_dict["seconds"] = seconds
        if summary is not UNSET:
            field_dict["summary"] = summary
        if screenshot is not UNSET:
            field_dict["screenshot"] = screenshot
        if no_screenshot is not UNSET:
            field_dict["no_screenshot"] = no_screenshot
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms
        if screenshot_url is not UNSET:
            field_dict["screenshot_url"] = screenshot_url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.answers import Answers # noqa: PLC0415
        from ..models.effect import Effect # noqa: PLC0415
        d = dict(src_dict)
        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        def _parse_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        def _parse_same_document(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        same_document = _parse_same_document(d.pop("same_document", UNSET))


        def _parse_navigation(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        navigation = _parse_navigation(d.pop("navigation", UNSET))


        form_errors = cast(list[str], d.pop("form_errors", UNSET))


        def _parse_effect(data: object) -> Effect | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                effect_type_1 = Effect.from_dict(data)



                return effect_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Effect | None | Unset, data)

        effect = _parse_effect(d.pop("effect", UNSET))


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


        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))


        def _parse_link(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        link = _parse_link(d.pop("link", UNSET))


        def _parse_anchor_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        anchor_text = _parse_anchor_text(d.pop("anchor_text", UNSET))


        chosen_by = cast(list[str], d.pop("chosen_by", UNSET))


        describe_matched = cast(list[str], d.pop("describe_matched", UNSET))


        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))


        def _parse_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        seconds = _parse_seconds(d.pop("seconds", UNSET))


        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))


        def _parse_screenshot(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        screenshot = _parse_screenshot(d.pop("screenshot", UNSET))


        def _parse_no_screenshot(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        no_screenshot = _parse_no_screenshot(d.pop("no_screenshot", UNSET))


        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_ms = _parse_timeout_ms(d.pop("timeout_ms", UNSET))


        def _parse_screenshot_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        screenshot_url = _parse_screenshot_url(d.pop("screenshot_url", UNSET))


        step_detail = cls(
            url=url,
            status=status,
            same_document=same_document,
            navigation=navigation,
            form_errors=form_errors,
            effect=effect,
            answers=answers,
            code=code,
            link=link,
            anchor_text=anchor_text,
            chosen_by=chosen_by,
            describe_matched=describe_matched,
            text=text,
            seconds=seconds,
            summary=summary,
            screenshot=screenshot,
            no_screenshot=no_screenshot,
            timeout_ms=timeout_ms,
            screenshot_url=screenshot_url,
        )


        step_detail.additional_properties = d
        return step_detail

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
