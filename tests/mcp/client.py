"""A real MCP client (the official Python SDK) driving planlock's MCP tools for the Rust
integration tests (tests/it/mcp.rs): it reads a scenario as JSON on stdin, makes the calls,
and prints what it saw as JSON on stdout.

Scenario: {"server": {"stdio": [argv...]} | {"http": URL, "token": T},
           "mode": "auto" | "legacy",        # 2026-07-28 (input-required retries) or earlier
           "answers": {"the question's words": "answer"} | null,  # null: no elicitation
           "calls": [{"tool": NAME, "arguments": {...},
                      "cancel_at": "words in a progress message",   # then cancel_run it
                      "abandon_at": "words in a progress message"}]}  # then give up the call
Each call's outcome: {"is_error", "structured", "text", "progress": [...], "asked": [...],
"seconds": how long it took}; a
call given up: {"abandoned": RUN_ID, "run": the run once it ended, as get_run answers it}.

In a call's arguments, the string "$run_id[N]" stands for the `run_id` the N-th call answered
(a run started with `wait: false`).

Besides tool calls, an entry of "calls" may be:
  {"list_tools": true}        -> {"bytes": the tools/list answer as the SDK holds it, in JSON,
                                  "tools": [each tool as JSON]}
  {"get_prompt": NAME, "arguments": {...}} -> {"text": the messages' text}
  {"read_resource": URI}      -> {"text", "mime"}
  {"schema_cases": [{"tool", "arguments"}]} -> for each case, whether the tool's input schema
                                  accepts the arguments (jsonschema, the SDK's validator) and
                                  whether the server read them: {"schema": bool, "server": bool,
                                  "kind": the error's kind or null}
"""

import asyncio
import json
import re
import sys
import time

import httpx2
import jsonschema
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitResult


async def main() -> None:
    scenario = json.load(sys.stdin)
    server = scenario["server"]
    asked: list[str] = []
    answers = scenario.get("answers")

    async def elicit(context, params):
        asked.append(params.message)
        for words, answer in answers.items():
            if words in params.message:
                return ElicitResult(action="accept", content={"answer": answer})
        return ElicitResult(action="decline")

    options = {"mode": scenario.get("mode", "auto")}
    if answers is not None:
        options["elicitation_callback"] = elicit
    if "stdio" in server:
        argv = server["stdio"]
        target = StdioServerParameters(command=argv[0], args=argv[1:], env=server.get("env"))
    else:
        headers = {}
        if server.get("token"):
            headers["Authorization"] = f"Bearer {server['token']}"
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(300))
        target = streamable_http_client(server["http"], http_client=http)

    outcomes = []
    async with Client(target, **options) as client:
        for call in scenario["calls"]:
            progress: list[str] = []
            asked.clear()
            cancelled = asyncio.Event()

            cancels: list = []

            async def on_progress(done, total, message, call=call, progress=progress):
                progress.append(message or "")
                words = call.get("cancel_at")
                if words and message and words in message and not cancelled.is_set():
                    cancelled.set()
                    # Another call while this one runs: not awaited in the callback, which
                    # the session's reader is waiting on.
                    run_id = re.match(r"run (\S+)", message).group(1)
                    cancels.append(
                        asyncio.create_task(client.call_tool("cancel_run", {"id": run_id}))
                    )

            if call.get("abandon_at"):
                outcomes.append(await abandoned(client, call))
                continue
            if call.get("list_tools"):
                listed = await client.list_tools(cache_mode="refresh")
                answer = listed.model_dump_json(by_alias=True, exclude_none=True)
                outcomes.append({
                    "bytes": len(answer.encode()),
                    "tools": [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools],
                })
                continue
            if "get_prompt" in call:
                prompt = await client.get_prompt(call["get_prompt"], call.get("arguments"))
                outcomes.append({"text": "\n".join(m.content.text for m in prompt.messages)})
                continue
            if "read_resource" in call:
                read = await client.read_resource(call["read_resource"])
                outcomes.append({"text": read.contents[0].text, "mime": read.contents[0].mime_type})
                continue
            if "schema_cases" in call:
                outcomes.append(await schema_cases(client, call["schema_cases"]))
                continue
            began = time.monotonic()
            result = await client.call_tool(
                call["tool"], resolved(call.get("arguments", {}), outcomes),
                progress_callback=on_progress,
            )
            seconds = time.monotonic() - began
            outcomes_cancel = [await c for c in cancels]
            text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            outcomes.append(
                {
                    "is_error": bool(result.is_error),
                    "structured": result.structured_content,
                    "text": text,
                    "progress": progress,
                    "asked": list(asked),
                    "cancel": [c.structured_content for c in outcomes_cancel],
                    "seconds": seconds,
                }
            )
    json.dump(outcomes, sys.stdout)


def resolved(value, outcomes):
    """`value` with each "$run_id[N]" replaced by the run id of the N-th outcome."""
    if isinstance(value, dict):
        return {k: resolved(v, outcomes) for k, v in value.items()}
    if isinstance(value, list):
        return [resolved(v, outcomes) for v in value]
    if isinstance(value, str):
        m = re.fullmatch(r"\$run_id\[(\d+)\]", value)
        if m:
            return outcomes[int(m.group(1))]["structured"]["run_id"]
    return value


async def schema_cases(client, cases) -> list:
    """Each case judged twice: by the tool's input schema, and by the server reading it (an
    error of kind `invalid_request` or `invalid_plan` is the server refusing the arguments)."""
    listed = await client.list_tools(cache_mode="refresh")
    schemas = {t.name: t.input_schema for t in listed.tools}
    judged = []
    for case in cases:
        validator = jsonschema.Draft202012Validator(schemas[case["tool"]])
        schema_ok = validator.is_valid(case["arguments"])
        result = await client.call_tool(case["tool"], case["arguments"])
        kind = None
        if result.is_error:
            text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            kind = json.loads(text)["error"]["kind"]
        judged.append({
            "tool": case["tool"], "arguments": case["arguments"], "schema": schema_ok,
            "server": kind not in ("invalid_request", "invalid_plan"), "kind": kind,
        })
    return judged


async def abandoned(client, call) -> dict:
    """Makes the call, gives it up (cancels its task: the SDK tells the server) once a progress
    message has the words, then follows the run with `get_run` until it ends."""
    seen: dict = {}

    async def on_progress(done, total, message):
        if message and call["abandon_at"] in message and "run_id" not in seen:
            seen["run_id"] = re.match(r"run (\S+)", message).group(1)
            task.cancel()

    task = asyncio.create_task(
        client.call_tool(call["tool"], call.get("arguments", {}), progress_callback=on_progress)
    )
    try:
        await task
        raise SystemExit("the call ended before it was given up")
    except asyncio.CancelledError:
        pass
    for _ in range(600):
        view = await client.call_tool("get_run", {"id": seen["run_id"]})
        run = view.structured_content["run"]
        if run["status"] not in ("queued", "running"):
            return {"abandoned": seen["run_id"], "run": run}
        await asyncio.sleep(0.1)
    raise SystemExit(f"run {seen['run_id']} did not end after its call was given up")


asyncio.run(main())
