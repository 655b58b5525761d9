from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.plan_preview import PlanPreview
from ...models.planned import Planned
from ...models.plans_body import PlansBody
from typing import cast



def _get_kwargs(
    *,
    body: PlansBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/plans",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Planned | PlanPreview | None:
    if response.status_code == 200:
        def _parse_response_200(data: object) -> Planned | PlanPreview:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_plans_answer_type_0 = Planned.from_dict(data)



                return componentsschemas_plans_answer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_plans_answer_type_1 = PlanPreview.from_dict(data)



            return componentsschemas_plans_answer_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())



        return response_403

    if response.status_code == 408:
        response_408 = ErrorBody.from_dict(response.json())



        return response_408

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())



        return response_413

    if response.status_code == 414:
        response_414 = ErrorBody.from_dict(response.json())



        return response_414

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 431:
        response_431 = ErrorBody.from_dict(response.json())



        return response_431

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())



        return response_500

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Planned | PlanPreview]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PlansBody,

) -> Response[ErrorBody | Planned | PlanPreview]:
    """ Plans a goal with one model call (none when cached); nothing runs.

    Args:
        body (PlansBody): `POST /v1/plans`: a goal to plan; nothing runs. Example: {'goal': 'log
            in at shop.example with {{inbox_address}}', 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Planned | PlanPreview]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: PlansBody,

) -> ErrorBody | Planned | PlanPreview | None:
    """ Plans a goal with one model call (none when cached); nothing runs.

    Args:
        body (PlansBody): `POST /v1/plans`: a goal to plan; nothing runs. Example: {'goal': 'log
            in at shop.example with {{inbox_address}}', 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Planned | PlanPreview
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PlansBody,

) -> Response[ErrorBody | Planned | PlanPreview]:
    """ Plans a goal with one model call (none when cached); nothing runs.

    Args:
        body (PlansBody): `POST /v1/plans`: a goal to plan; nothing runs. Example: {'goal': 'log
            in at shop.example with {{inbox_address}}', 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Planned | PlanPreview]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PlansBody,

) -> ErrorBody | Planned | PlanPreview | None:
    """ Plans a goal with one model call (none when cached); nothing runs.

    Args:
        body (PlansBody): `POST /v1/plans`: a goal to plan; nothing runs. Example: {'goal': 'log
            in at shop.example with {{inbox_address}}', 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Planned | PlanPreview
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
