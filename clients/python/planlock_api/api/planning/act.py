from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.accepted import Accepted
from ...models.act_body import ActBody
from ...models.act_result import ActResult
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: ActBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(accept, Unset):
        headers["Accept"] = accept

    if not isinstance(prefer, Unset):
        headers["Prefer"] = prefer



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/act",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Accepted | ActResult | ErrorBody | None:
    if response.status_code == 200:
        response_200 = ActResult.from_dict(response.json())



        return response_200

    if response.status_code == 202:
        response_202 = Accepted.from_dict(response.json())



        return response_202

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Accepted | ActResult | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ActBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Response[Accepted | ActResult | ErrorBody]:
    """ Plans the goal with one model call, then runs the plan.

     Answered like `POST /v1/runs`, with the planning added.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (ActBody): `POST /v1/act`: a goal to plan, then run. Example: {'goal': 'sign up at
            https://shop.example with {{inbox_address}} and verify the email', 'inbox': 'support',
            'secrets': {'SHOP_PASSWORD': 'correct horse'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Accepted | ActResult | ErrorBody]
     """


    kwargs = _get_kwargs(
        body=body,
accept=accept,
prefer=prefer,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: ActBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Accepted | ActResult | ErrorBody | None:
    """ Plans the goal with one model call, then runs the plan.

     Answered like `POST /v1/runs`, with the planning added.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (ActBody): `POST /v1/act`: a goal to plan, then run. Example: {'goal': 'sign up at
            https://shop.example with {{inbox_address}} and verify the email', 'inbox': 'support',
            'secrets': {'SHOP_PASSWORD': 'correct horse'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Accepted | ActResult | ErrorBody
     """


    return sync_detailed(
        client=client,
body=body,
accept=accept,
prefer=prefer,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ActBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Response[Accepted | ActResult | ErrorBody]:
    """ Plans the goal with one model call, then runs the plan.

     Answered like `POST /v1/runs`, with the planning added.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (ActBody): `POST /v1/act`: a goal to plan, then run. Example: {'goal': 'sign up at
            https://shop.example with {{inbox_address}} and verify the email', 'inbox': 'support',
            'secrets': {'SHOP_PASSWORD': 'correct horse'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Accepted | ActResult | ErrorBody]
     """


    kwargs = _get_kwargs(
        body=body,
accept=accept,
prefer=prefer,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ActBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Accepted | ActResult | ErrorBody | None:
    """ Plans the goal with one model call, then runs the plan.

     Answered like `POST /v1/runs`, with the planning added.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (ActBody): `POST /v1/act`: a goal to plan, then run. Example: {'goal': 'sign up at
            https://shop.example with {{inbox_address}} and verify the email', 'inbox': 'support',
            'secrets': {'SHOP_PASSWORD': 'correct horse'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Accepted | ActResult | ErrorBody
     """


    return (await asyncio_detailed(
        client=client,
body=body,
accept=accept,
prefer=prefer,

    )).parsed
