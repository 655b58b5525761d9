from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.ended_run import EndedRun
from ...models.error_body import ErrorBody
from ...models.run_progress import RunProgress
from typing import cast



def _get_kwargs(
    id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/runs/{id}".format(id=quote(str(id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EndedRun | RunProgress | ErrorBody | None:
    if response.status_code == 200:
        def _parse_response_200(data: object) -> EndedRun | RunProgress:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_run_view_type_0 = EndedRun.from_dict(data)



                return componentsschemas_run_view_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_run_view_type_1 = RunProgress.from_dict(data)



            return componentsschemas_run_view_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 202:
        def _parse_response_202(data: object) -> EndedRun | RunProgress:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_run_view_type_0 = EndedRun.from_dict(data)



                return componentsschemas_run_view_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_run_view_type_1 = RunProgress.from_dict(data)



            return componentsschemas_run_view_type_1

        response_202 = _parse_response_202(response.json())

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

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 414:
        response_414 = ErrorBody.from_dict(response.json())



        return response_414

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EndedRun | RunProgress | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Response[EndedRun | RunProgress | ErrorBody]:
    """ Cancels a queued or running run.

     On this replica or, through the store, on the one running it; answers its result
    (`cancelled`). A finished run is left as it is and its result answered.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndedRun | RunProgress | ErrorBody]
     """


    kwargs = _get_kwargs(
        id=id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,

) -> EndedRun | RunProgress | ErrorBody | None:
    """ Cancels a queued or running run.

     On this replica or, through the store, on the one running it; answers its result
    (`cancelled`). A finished run is left as it is and its result answered.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndedRun | RunProgress | ErrorBody
     """


    return sync_detailed(
        id=id,
client=client,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Response[EndedRun | RunProgress | ErrorBody]:
    """ Cancels a queued or running run.

     On this replica or, through the store, on the one running it; answers its result
    (`cancelled`). A finished run is left as it is and its result answered.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndedRun | RunProgress | ErrorBody]
     """


    kwargs = _get_kwargs(
        id=id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,

) -> EndedRun | RunProgress | ErrorBody | None:
    """ Cancels a queued or running run.

     On this replica or, through the store, on the one running it; answers its result
    (`cancelled`). A finished run is left as it is and its result answered.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndedRun | RunProgress | ErrorBody
     """


    return (await asyncio_detailed(
        id=id,
client=client,

    )).parsed
