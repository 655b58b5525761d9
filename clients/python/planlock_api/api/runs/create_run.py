from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.accepted import Accepted
from ...models.error_body import ErrorBody
from ...models.run_body import RunBody
from ...models.run_result import RunResult
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: RunBody,
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
        "url": "/v1/runs",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Accepted | ErrorBody | RunResult | None:
    if response.status_code == 200:
        response_200 = RunResult.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Accepted | ErrorBody | RunResult]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: RunBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Response[Accepted | ErrorBody | RunResult]:
    """ Replays a plan; no model involved. Queued when every slot is busy.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (RunBody): `POST /v1/runs`: a plan to replay. Example: {'plan': {'reasoning': '',
            'steps': [{'type': 'navigate', 'url': 'https://shop.example/'}, {'type': 'extract_text',
            'describe': 'the price', 'selector': '#price'}, {'type': 'done', 'summary': 'read the
            price'}]}, 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Accepted | ErrorBody | RunResult]
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
    body: RunBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Accepted | ErrorBody | RunResult | None:
    """ Replays a plan; no model involved. Queued when every slot is busy.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (RunBody): `POST /v1/runs`: a plan to replay. Example: {'plan': {'reasoning': '',
            'steps': [{'type': 'navigate', 'url': 'https://shop.example/'}, {'type': 'extract_text',
            'describe': 'the price', 'selector': '#price'}, {'type': 'done', 'summary': 'read the
            price'}]}, 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Accepted | ErrorBody | RunResult
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
    body: RunBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Response[Accepted | ErrorBody | RunResult]:
    """ Replays a plan; no model involved. Queued when every slot is busy.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (RunBody): `POST /v1/runs`: a plan to replay. Example: {'plan': {'reasoning': '',
            'steps': [{'type': 'navigate', 'url': 'https://shop.example/'}, {'type': 'extract_text',
            'describe': 'the price', 'selector': '#price'}, {'type': 'done', 'summary': 'read the
            price'}]}, 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Accepted | ErrorBody | RunResult]
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
    body: RunBody,
    accept: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,

) -> Accepted | ErrorBody | RunResult | None:
    """ Replays a plan; no model involved. Queued when every slot is busy.

    Args:
        accept (None | str | Unset):
        prefer (None | str | Unset):
        body (RunBody): `POST /v1/runs`: a plan to replay. Example: {'plan': {'reasoning': '',
            'steps': [{'type': 'navigate', 'url': 'https://shop.example/'}, {'type': 'extract_text',
            'describe': 'the price', 'selector': '#price'}, {'type': 'done', 'summary': 'read the
            price'}]}, 'inbox': 'support'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Accepted | ErrorBody | RunResult
     """


    return (await asyncio_detailed(
        client=client,
body=body,
accept=accept,
prefer=prefer,

    )).parsed
