"""The Python client against a real `planlock serve` (conftest.py)."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import TOKEN, WEBHOOK_SECRET, plan_for

from planlock_api.api.runs import get_run
from planlock_api.api.service import healthz
from planlock_api.models import ApiErrorKind, ErrorBody
from planlock_client import (
    SIGNATURE_HEADER,
    AsyncPlanlock,
    Planlock,
    PlanlockError,
    verify_webhook,
)


@pytest.fixture
def client(planlock) -> Planlock:
    return Planlock(planlock, token=TOKEN)


def test_run_waits_and_the_store_keeps_the_result(client, site):
    result = client.run(plan_for(site), allowed_hosts=["127.0.0.1"])
    assert result["status"] == "succeeded", result
    assert result["extracted"] == ["planlock"]
    stored = client.get_run(result["run_id"])
    assert stored["status"] == "succeeded"
    assert stored["extracted"] == ["planlock"]


def test_act_plans_with_one_model_call_then_runs(client, site, model):
    before = len(model["seen"])
    result = client.act(f"read who {site}/ greets", allowed_hosts=["127.0.0.1"], look=False)
    assert result["status"] == "succeeded", result
    assert result["extracted"] == ["planlock"]
    assert len(model["seen"]) - before <= 1
    review = result["planning"]["review"]
    assert review["allowed_hosts"] == result["allowed_hosts"]


def test_a_run_not_waited_for_is_waited_for_later(client, site):
    accepted = client.run(plan_for(site), allowed_hosts=["127.0.0.1"], wait=False)
    assert accepted["href"] == f"/v1/runs/{accepted['run_id']}"
    result = client.wait(accepted["run_id"], timeout=120)
    assert result["status"] == "succeeded"


def test_stream_yields_each_event_then_the_result(client, site):
    lines = list(client.stream(plan_for(site), allowed_hosts=["127.0.0.1"]))
    events = [line["event"] for line in lines]
    assert events[0] == "run_started"
    assert "step_succeeded" in events
    assert events[-2:] == ["run_finished", "result"]
    assert lines[-1]["status"] == "succeeded"


def test_errors_carry_the_apis_kind_and_message(client, planlock):
    with pytest.raises(PlanlockError) as invalid:
        client.run({"reasoning": "", "steps": [{"type": "scroll"}]})
    assert invalid.value.status == 422
    assert invalid.value.kind == "invalid_plan"
    assert any(p["path"] == "steps[0].type" for p in invalid.value.problems)
    with pytest.raises(PlanlockError) as unauthorized:
        Planlock(planlock, token="wrong").get_run("x")
    assert unauthorized.value.status == 401
    assert unauthorized.value.kind == "unauthorized"
    assert "bearer token" in unauthorized.value.message


def test_the_generated_client_calls_the_api(client):
    health = healthz.sync(client=client.client)
    assert health.status == "ok"
    # An error answer parses into the generated model, its kind one of the enum's.
    missing = get_run.sync("nothing-here", client=client.client)
    assert isinstance(missing, ErrorBody), missing
    assert missing.error.kind == ApiErrorKind.RUN_NOT_FOUND


def test_webhook_signatures_verify_and_refuse_tampering():
    body = b'{"a":1}'
    signed = "t=1700000000,v1=8ad37ba156048ae0e0a5533c75cdf26fee88b07f93cb57ee4c80adb053012032"
    assert verify_webhook("whsec", body, signed, tolerance=None)
    assert not verify_webhook("whsec", b'{"a":2}', signed, tolerance=None)
    assert not verify_webhook("other", body, signed, tolerance=None)
    assert not verify_webhook("whsec", body, signed)  # years old: a replay
    assert not verify_webhook("whsec", body, "v1=nothing", tolerance=None)


def test_a_real_delivery_verifies(client, site):
    received: list[tuple[bytes, str]] = []
    arrived = threading.Event()

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            received.append((self.rfile.read(int(self.headers["content-length"])),
                             self.headers[SIGNATURE_HEADER]))
            self.send_response(200)
            self.end_headers()
            arrived.set()

        def log_message(self, *args):
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        receiver_host = f"127.0.0.1:{receiver.server_address[1]}"
        url = f"http://{receiver_host}/hook"
        # A loopback receiver is another service than the site: the request names both ports.
        site_host = urllib.parse.urlsplit(site).netloc
        result = client.run(plan_for(site), allowed_hosts=[site_host, receiver_host], callback_url=url)
        assert arrived.wait(30), "no delivery"
        body, signature = received[0]
        assert verify_webhook(WEBHOOK_SECRET, body, signature)
        assert not verify_webhook("another secret", body, signature)
        assert json.loads(body)["run_id"] == result["run_id"]
    finally:
        receiver.shutdown()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_server_that_is_down_is_the_clients_own_error_unreachable():
    down = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(PlanlockError) as caught:
        Planlock(down).get_run("anything")
    assert caught.value.kind == "unreachable"
    assert caught.value.status == 0
    assert down in caught.value.message
    with pytest.raises(PlanlockError) as streamed:
        list(Planlock(down).stream({"reasoning": "", "steps": []}))
    assert streamed.value.kind == "unreachable"

    async def down_async():
        async with AsyncPlanlock(down) as planlock:
            await planlock.list_runs()

    with pytest.raises(PlanlockError) as awaited:
        asyncio.run(down_async())
    assert awaited.value.kind == "unreachable"


def test_list_runs_pages_newest_first_and_filters_by_status(client, site):
    ids = [client.run(plan_for(site), allowed_hosts=["127.0.0.1"])["run_id"] for _ in range(2)]
    page = client.list_runs(status="succeeded", limit=1)
    assert [r["run_id"] for r in page["runs"]] == [ids[1]]
    assert page["next_cursor"]
    following = client.list_runs(status="succeeded", limit=1, cursor=page["next_cursor"])
    assert [r["run_id"] for r in following["runs"]] == [ids[0]]
    with pytest.raises(PlanlockError) as bad:
        client.list_runs(status="sideways")
    assert bad.value.kind == "invalid_query"


def test_the_async_client_runs_follows_streams_and_lists(planlock, site):
    async def scenario():
        async with AsyncPlanlock(planlock, token=TOKEN) as p:
            result = await p.run(plan_for(site), allowed_hosts=["127.0.0.1"])
            accepted = await p.run(plan_for(site), allowed_hosts=["127.0.0.1"], wait=False)
            waited = await p.wait(accepted["run_id"], timeout=120)
            lines = [line async for line in p.stream(plan_for(site), allowed_hosts=["127.0.0.1"])]
            listed = await p.list_runs(limit=3)
            return result, accepted, waited, lines, listed

    result, accepted, waited, lines, listed = asyncio.run(scenario())
    assert result["status"] == "succeeded" and result["extracted"] == ["planlock"]
    assert waited["run_id"] == accepted["run_id"] and waited["status"] == "succeeded"
    assert lines[-1]["event"] == "result" and lines[-1]["status"] == "succeeded"
    assert lines[-1]["run_id"] in [r["run_id"] for r in listed["runs"]]
