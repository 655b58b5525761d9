"""A thin layer over the generated client of planlock's HTTP API (`planlock_api`):
`act`, `run`, `wait`, `list_runs`, streaming a run's events (NDJSON), errors carrying the
API's `kind` and `message` (`unreachable` when the server cannot be reached), webhook
signature verification, and the same calls awaitable in `AsyncPlanlock`.

    from planlock_client import Planlock

    planlock = Planlock("http://127.0.0.1:8080", token="...")
    result = planlock.act("sign up at https://shop.example with {{inbox_address}}", inbox="support")
    print(result["status"], result.get("error"))
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import httpx

from planlock_api import AuthenticatedClient, Client

__all__ = ["Planlock", "AsyncPlanlock", "PlanlockError", "verify_webhook", "SIGNATURE_HEADER"]

#: The header a webhook delivery is signed in: `t=UNIX_SECONDS,v1=HEX`.
SIGNATURE_HEADER = "Planlock-Signature"

_ENDED = ("succeeded", "failed", "cancelled")


class PlanlockError(Exception):
    """An answer of the API that is not a success: its `kind` (e.g. `invalid_plan`,
    `lock_refused`, `queue_full`), its `message` (a sentence saying what to do) and the HTTP
    `status`. `problems` lists an invalid plan's problems, each with its JSON path. A server
    that cannot be reached is kind `unreachable`, status 0."""

    def __init__(self, status: int, kind: str, message: str, problems: list | None = None):
        super().__init__(f"{kind}: {message}")
        self.status = status
        self.kind = kind
        self.message = message
        self.problems = problems or []


def _body(**fields: Any) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


def _unreachable(base_url: str, error: httpx.TransportError) -> PlanlockError:
    return PlanlockError(
        0, "unreachable",
        f"cannot reach the planlock server at {base_url} ({type(error).__name__}: {error}): is "
        "`planlock serve` running there?",
    )


def _runs_query(status: str | None, limit: int | None, cursor: str | None) -> dict:
    return {k: v for k, v in (("status", status), ("limit", limit), ("cursor", cursor))
            if v is not None}


class Planlock:
    """A planlock server: `base_url` such as `http://127.0.0.1:8080`, and its bearer token
    when it has one (`PLANLOCK_TOKEN`)."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 660.0):
        self.base_url = base_url
        if token:
            self.client: Client | AuthenticatedClient = AuthenticatedClient(
                base_url=base_url, token=token, timeout=timeout
            )
        else:
            self.client = Client(base_url=base_url, timeout=timeout)

    # The calls.

    def act(
        self,
        goal: str,
        *,
        inbox: str | list[str] | None = None,
        vars: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        allowed_hosts: list[str] | None = None,
        look: bool | str | None = None,
        strict: bool | None = None,
        callback_url: str | None = None,
        wait: bool = True,
    ) -> dict:
        """Plans `goal` with one model call, then runs the plan. Returns the run's result (its
        `planning` beside it) once it ended; with `wait=False`, the accepted run (`run_id`,
        `href`) at once, to `wait()` for."""
        body = _body(
            goal=goal, inbox=inbox, vars=vars, secrets=secrets, allowed_hosts=allowed_hosts,
            look=look, strict=strict, callback_url=callback_url,
        )
        return self._start("/v1/act", body, wait)

    def run(
        self,
        plan: Mapping[str, Any] | str,
        *,
        inbox: str | list[str] | None = None,
        vars: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        allowed_hosts: list[str] | None = None,
        strict: bool | None = None,
        callback_url: str | None = None,
        wait: bool = True,
    ) -> dict:
        """Replays `plan` (a plan object or its JSON) with no model, as `act` answers."""
        body = _body(
            plan=plan, inbox=inbox, vars=vars, secrets=secrets, allowed_hosts=allowed_hosts,
            strict=strict, callback_url=callback_url,
        )
        return self._start("/v1/runs", body, wait)

    def plan(self, goal: str, **fields: Any) -> dict:
        """Plans `goal` without running it: the plan, its review and its questions."""
        return self._json("POST", "/v1/plans", _body(goal=goal, **fields))

    def wait(self, run_id: str, timeout: float = 660.0, every: float = 0.5) -> dict:
        """Polls the run until it ended; its result. `TimeoutError` after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            run = self.get_run(run_id)
            if run.get("status") in _ENDED and "steps" in run:
                return run
            if time.monotonic() >= deadline:
                raise TimeoutError(f"run {run_id} had not ended after {timeout} s")
            time.sleep(every)

    def get_run(self, run_id: str) -> dict:
        """The run's result once it ended, else its progress."""
        return self._json("GET", f"/v1/runs/{run_id}")

    def cancel(self, run_id: str) -> dict:
        """Cancels a queued or running run; the run as it ended (or its progress)."""
        return self._json("DELETE", f"/v1/runs/{run_id}")

    def list_runs(self, status: str | None = None, limit: int | None = None,
                  cursor: str | None = None) -> dict:
        """A page of runs, newest first: `{"runs": [...], "next_cursor": ...}`; pass
        `next_cursor` as `cursor` for the next page. `status` keeps runs in that state."""
        return self._json("GET", "/v1/runs", params=_runs_query(status, limit, cursor))

    def stream(self, plan: Mapping[str, Any] | str | None = None, *, goal: str | None = None,
               **fields: Any) -> Iterator[dict]:
        """Starts a run (`plan`, or `goal` to plan first) and yields each line as it happens:
        `planned` (for a goal), each event (`run_started`, `step_started`, …), then the
        result (`"event": "result"`)."""
        if (plan is None) == (goal is None):
            raise ValueError("give a plan or a goal")
        path, body = ("/v1/runs", _body(plan=plan, **fields)) if goal is None else (
            "/v1/act", _body(goal=goal, **fields))
        http = self.client.get_httpx_client()
        try:
            with http.stream("POST", path, json=body,
                             headers={"accept": "application/x-ndjson"}) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _error(response.status_code, response.content)
                for line in response.iter_lines():
                    if line.strip():
                        yield json.loads(line)
        except httpx.TransportError as e:
            raise _unreachable(self.base_url, e) from e

    # The plumbing.

    def _start(self, path: str, body: dict, wait: bool) -> dict:
        headers = {} if wait else {"prefer": "respond-async"}
        return self._json("POST", path, body, headers)

    def _json(self, method: str, path: str, body: dict | None = None,
              headers: dict | None = None, params: dict | None = None) -> dict:
        http = self.client.get_httpx_client()
        try:
            response = http.request(method, path, json=body, headers=headers or {},
                                    params=params)
        except httpx.TransportError as e:
            raise _unreachable(self.base_url, e) from e
        if response.status_code >= 400:
            raise _error(response.status_code, response.content)
        return response.json()


class AsyncPlanlock:
    """`Planlock`'s calls, awaitable: `await AsyncPlanlock(url).run(plan)`. Use it as
    `async with AsyncPlanlock(url) as planlock:` to close its connections at the end."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 660.0):
        self.base_url = base_url
        if token:
            self.client: Client | AuthenticatedClient = AuthenticatedClient(
                base_url=base_url, token=token, timeout=timeout
            )
        else:
            self.client = Client(base_url=base_url, timeout=timeout)

    async def __aenter__(self) -> "AsyncPlanlock":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.client.get_async_httpx_client().aclose()

    async def act(self, goal: str, *, inbox: str | list[str] | None = None,
                  vars: Mapping[str, str] | None = None, secrets: Mapping[str, str] | None = None,
                  allowed_hosts: list[str] | None = None, look: bool | str | None = None,
                  strict: bool | None = None, callback_url: str | None = None,
                  wait: bool = True) -> dict:
        """As `Planlock.act`."""
        body = _body(
            goal=goal, inbox=inbox, vars=vars, secrets=secrets, allowed_hosts=allowed_hosts,
            look=look, strict=strict, callback_url=callback_url,
        )
        return await self._json("POST", "/v1/act", body, {} if wait else {"prefer": "respond-async"})

    async def run(self, plan: Mapping[str, Any] | str, *, inbox: str | list[str] | None = None,
                  vars: Mapping[str, str] | None = None, secrets: Mapping[str, str] | None = None,
                  allowed_hosts: list[str] | None = None, strict: bool | None = None,
                  callback_url: str | None = None, wait: bool = True) -> dict:
        """As `Planlock.run`."""
        body = _body(
            plan=plan, inbox=inbox, vars=vars, secrets=secrets, allowed_hosts=allowed_hosts,
            strict=strict, callback_url=callback_url,
        )
        return await self._json("POST", "/v1/runs", body, {} if wait else {"prefer": "respond-async"})

    async def plan(self, goal: str, **fields: Any) -> dict:
        """As `Planlock.plan`."""
        return await self._json("POST", "/v1/plans", _body(goal=goal, **fields))

    async def get_run(self, run_id: str) -> dict:
        return await self._json("GET", f"/v1/runs/{run_id}")

    async def cancel(self, run_id: str) -> dict:
        return await self._json("DELETE", f"/v1/runs/{run_id}")

    async def list_runs(self, status: str | None = None, limit: int | None = None,
                        cursor: str | None = None) -> dict:
        """As `Planlock.list_runs`."""
        return await self._json("GET", "/v1/runs", params=_runs_query(status, limit, cursor))

    async def wait(self, run_id: str, timeout: float = 660.0, every: float = 0.5) -> dict:
        """As `Planlock.wait`, sleeping without blocking the loop."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            run = await self.get_run(run_id)
            if run.get("status") in _ENDED and "steps" in run:
                return run
            if loop.time() >= deadline:
                raise TimeoutError(f"run {run_id} had not ended after {timeout} s")
            await asyncio.sleep(every)

    async def stream(self, plan: Mapping[str, Any] | str | None = None, *,
                     goal: str | None = None, **fields: Any) -> AsyncIterator[dict]:
        """As `Planlock.stream`: `async for line in planlock.stream(plan): ...`."""
        if (plan is None) == (goal is None):
            raise ValueError("give a plan or a goal")
        path, body = ("/v1/runs", _body(plan=plan, **fields)) if goal is None else (
            "/v1/act", _body(goal=goal, **fields))
        http = self.client.get_async_httpx_client()
        try:
            async with http.stream("POST", path, json=body,
                                   headers={"accept": "application/x-ndjson"}) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise _error(response.status_code, response.content)
                async for line in response.aiter_lines():
                    if line.strip():
                        yield json.loads(line)
        except httpx.TransportError as e:
            raise _unreachable(self.base_url, e) from e

    async def _json(self, method: str, path: str, body: dict | None = None,
                    headers: dict | None = None, params: dict | None = None) -> dict:
        http = self.client.get_async_httpx_client()
        try:
            response = await http.request(method, path, json=body, headers=headers or {},
                                          params=params)
        except httpx.TransportError as e:
            raise _unreachable(self.base_url, e) from e
        if response.status_code >= 400:
            raise _error(response.status_code, response.content)
        return response.json()


def _error(status: int, content: bytes) -> PlanlockError:
    try:
        error = json.loads(content)["error"]
        return PlanlockError(status, error["kind"], error["message"], error.get("problems"))
    except (ValueError, KeyError, TypeError):
        return PlanlockError(status, "http_error", content.decode("utf-8", "replace")[:500])


def verify_webhook(secret: str, body: bytes, signature: str, tolerance: float | None = 300.0,
                   now: float | None = None) -> bool:
    """Whether `body` (the raw bytes received) was signed by a planlock server holding
    `secret` (`PLANLOCK_WEBHOOK_SECRET`): `signature` is the `Planlock-Signature` header,
    `t=UNIX_SECONDS,v1=HEX(HMAC-SHA256(secret, "UNIX_SECONDS.BODY"))`. A signature older than
    `tolerance` seconds is refused (a replay); `None` accepts any age."""
    parts = dict(p.split("=", 1) for p in signature.split(",") if "=" in p)
    try:
        t = int(parts["t"])
        given = parts["v1"]
    except (KeyError, ValueError):
        return False
    if tolerance is not None and abs((time.time() if now is None else now) - t) > tolerance:
        return False
    expected = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, given)
