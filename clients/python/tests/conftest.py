"""A real `planlock serve` (with a real SQLite store) for the client's tests, a page for its
runs, and a stand-in model speaking the OpenAI Chat Completions wire format. Everything
listens on 127.0.0.1 and is stopped by the process or server it started."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "client-test-token"
WEBHOOK_SECRET = "whsec-client-test"
PAGE = b"""<!doctype html><html><head><title>Hello</title></head><body><main>
<h1>Hello</h1><p id="who">planlock</p></main></body></html>"""


def serve(handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Page(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site() -> str:
    server = serve(Page)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def plan_for(site: str) -> dict:
    return {
        "reasoning": "Open the page and read who it greets.",
        "steps": [
            {"type": "navigate", "url": f"{site}/"},
            {"type": "extract_text", "describe": "the greeting", "selector": "#who"},
            {"type": "done", "summary": "read the greeting"},
        ],
    }


@pytest.fixture(scope="session")
def model(site):
    """The stand-in model: every request gets the plan for `site`; the requests are kept."""
    seen: list[dict] = []

    class Model(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            seen.append(body)
            answer = {
                "id": "chatcmpl-stand-in", "object": "chat.completion", "model": "stand-in",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": json.dumps(plan_for(site))}}],
                "usage": {"prompt_tokens": 900, "completion_tokens": 200, "total_tokens": 1100},
            }
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = serve(Model)
    yield {"url": f"http://127.0.0.1:{server.server_address[1]}/v1", "seen": seen}
    server.shutdown()


@pytest.fixture(scope="session")
def planlock(model, tmp_path_factory):
    """`planlock serve` on a free loopback port, its runs in a SQLite store."""
    binary = os.environ.get("PLANLOCK_BIN", str(ROOT / "target/debug/planlock"))
    data = tmp_path_factory.mktemp("planlock")
    env = dict(os.environ)
    env.update({
        "PLANLOCK_TOKEN": TOKEN,
        "PLANLOCK_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "PLANLOCK_MODEL": "openai:stand-in",
        "OPENAI_BASE_URL": model["url"],
        "PLANLOCK_CACHE_DIR": str(data / "cache"),
    })
    env.pop("OPENAI_API_KEY", None)
    process = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--store", f"sqlite:{data / 'runs.sqlite3'}"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True,
    )
    said = []
    for line in process.stderr:
        said.append(line)
        found = re.search(r"serving on (http://127\.0\.0\.1:\d+)", line)
        if found:
            break
    else:
        process.kill()
        raise RuntimeError("planlock serve did not start:\n" + "".join(said))
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    yield found.group(1)
    process.terminate()
    process.wait(timeout=30)
