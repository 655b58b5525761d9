// The TypeScript client (built to dist/) against a real `planlock serve` with a real SQLite
// store, a page for its runs and a stand-in model speaking the OpenAI wire format, all on
// 127.0.0.1 and stopped by the test that started them.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";

import { Planlock, PlanlockError, SIGNATURE_HEADER, verifyWebhook } from "../dist/index.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const TOKEN = "ts-client-test-token";
const WEBHOOK_SECRET = "whsec-ts-client-test";

function listen(handler) {
  return new Promise((done) => {
    const server = createServer(handler);
    server.listen(0, "127.0.0.1", () => done(server));
  });
}

const base = (server) => `http://127.0.0.1:${server.address().port}`;

let site, model, planlock, serveProcess;
const modelRequests = [];

function planFor(url) {
  return {
    reasoning: "Open the page and read who it greets.",
    steps: [
      { type: "navigate", url: `${url}/` },
      { type: "extract_text", describe: "the greeting", selector: "#who" },
      { type: "done", summary: "read the greeting" },
    ],
  };
}

before(async () => {
  site = await listen((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end('<!doctype html><title>Hello</title><main><h1>Hello</h1><p id="who">planlock</p></main>');
  });
  model = await listen((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      modelRequests.push(JSON.parse(body));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({
        id: "chatcmpl-stand-in", object: "chat.completion", model: "stand-in",
        choices: [{ index: 0, finish_reason: "stop",
          message: { role: "assistant", content: JSON.stringify(planFor(base(site))) } }],
        usage: { prompt_tokens: 900, completion_tokens: 200, total_tokens: 1100 },
      }));
    });
  });
  const data = mkdtempSync(join(tmpdir(), "planlock-ts-client-"));
  const binary = process.env.PLANLOCK_BIN ?? join(ROOT, "target/debug/planlock");
  const env = { ...process.env, PLANLOCK_TOKEN: TOKEN, PLANLOCK_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PLANLOCK_MODEL: "openai:stand-in", OPENAI_BASE_URL: `${base(model)}/v1`,
    PLANLOCK_CACHE_DIR: join(data, "cache") };
  delete env.OPENAI_API_KEY;
  serveProcess = spawn(binary, ["serve", "--listen", "127.0.0.1:0", "--store", `sqlite:${join(data, "runs.sqlite3")}`],
    { env, stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((done, fail) => {
    let said = "";
    serveProcess.stderr.on("data", (chunk) => {
      said += chunk;
      const found = said.match(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
      if (found) done(found[1]);
    });
    serveProcess.on("exit", () => fail(new Error(`planlock serve did not start:\n${said}`)));
  });
  planlock = new Planlock(url, { token: TOKEN });
});

after(async () => {
  serveProcess?.kill("SIGTERM");
  site?.close();
  model?.close();
});

const hosts = { allowed_hosts: ["127.0.0.1"] };

test("run waits, and the store keeps the result", async () => {
  const result = await planlock.run(planFor(base(site)), hosts);
  assert.equal(result.status, "succeeded", JSON.stringify(result));
  assert.deepEqual(result.extracted, ["planlock"]);
  const stored = await planlock.getRun(result.run_id);
  assert.equal(stored.status, "succeeded");
});

test("act plans with one model call, then runs", async () => {
  const before = modelRequests.length;
  const result = await planlock.act(`read who ${base(site)}/ greets`, { ...hosts, look: false });
  assert.equal(result.status, "succeeded", JSON.stringify(result));
  assert.ok(modelRequests.length - before <= 1);
  assert.deepEqual(result.planning.review.allowed_hosts, result.allowed_hosts);
});

test("a run not waited for is waited for later", async () => {
  const accepted = await planlock.run(planFor(base(site)), { ...hosts, wait: false });
  assert.equal(accepted.href, `/v1/runs/${accepted.run_id}`);
  const result = await planlock.wait(accepted.run_id, 120_000);
  assert.equal(result.status, "succeeded");
});

test("stream yields each event, then the result", async () => {
  const lines = [];
  for await (const line of planlock.stream({ plan: planFor(base(site)) }, hosts)) lines.push(line);
  const events = lines.map((l) => l.event);
  assert.equal(events[0], "run_started");
  assert.deepEqual(events.slice(-2), ["run_finished", "result"]);
  assert.equal(lines.at(-1).status, "succeeded");
});

test("errors carry the API's kind and message", async () => {
  await assert.rejects(planlock.run({ reasoning: "", steps: [{ type: "scroll" }] }), (e) => {
    assert.ok(e instanceof PlanlockError);
    assert.equal(e.status, 422);
    assert.equal(e.kind, "invalid_plan");
    assert.ok(e.problems.some((p) => p.path === "steps[0].type"));
    return true;
  });
  const wrong = new Planlock(planlock.baseUrl, { token: "wrong" });
  await assert.rejects(wrong.getRun("x"), (e) => e.status === 401 && e.kind === "unauthorized" && /bearer token/.test(e.message));
});

test("webhook signatures verify and refuse tampering", () => {
  const body = '{"a":1}';
  const signed = "t=1700000000,v1=8ad37ba156048ae0e0a5533c75cdf26fee88b07f93cb57ee4c80adb053012032";
  assert.ok(verifyWebhook("whsec", body, signed, null));
  assert.ok(!verifyWebhook("whsec", '{"a":2}', signed, null));
  assert.ok(!verifyWebhook("other", body, signed, null));
  assert.ok(!verifyWebhook("whsec", body, signed), "years old: a replay");
  assert.ok(!verifyWebhook("whsec", body, "v1=nothing", null));
});

test("a real delivery verifies", async () => {
  let resolveDelivery;
  const delivered = new Promise((r) => (resolveDelivery = r));
  const receiver = await listen((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(200);
      res.end();
      resolveDelivery({ body: Buffer.concat(chunks), signature: req.headers[SIGNATURE_HEADER.toLowerCase()] });
    });
  });
  try {
    // A loopback receiver is another service than the site: the request names both ports.
    const allowed_hosts = [new URL(base(site)).host, new URL(base(receiver)).host];
    const result = await planlock.run(planFor(base(site)), { allowed_hosts, callback_url: `${base(receiver)}/hook` });
    const { body, signature } = await delivered;
    assert.ok(verifyWebhook(WEBHOOK_SECRET, body, signature));
    assert.ok(!verifyWebhook("another secret", body, signature));
    assert.equal(JSON.parse(body).run_id, result.run_id);
  } finally {
    receiver.close();
  }
});

test("a server that is down is the client's own error, kind unreachable", async () => {
  const closed = await listen(() => {});
  const down = base(closed);
  await new Promise((r) => closed.close(r));
  await assert.rejects(new Planlock(down).getRun("x"), (e) => {
    assert.ok(e instanceof PlanlockError, String(e));
    assert.equal(e.kind, "unreachable");
    assert.equal(e.status, 0);
    assert.ok(e.message.includes(down), e.message);
    return true;
  });
});

test("listRuns pages newest first and filters by status", async () => {
  const first = await planlock.run(planFor(base(site)), hosts);
  const second = await planlock.run(planFor(base(site)), hosts);
  const page = await planlock.listRuns({ status: "succeeded", limit: 1 });
  assert.deepEqual(page.runs.map((r) => r.run_id), [second.run_id]);
  assert.ok(page.next_cursor);
  const next = await planlock.listRuns({ status: "succeeded", limit: 1, cursor: page.next_cursor });
  assert.deepEqual(next.runs.map((r) => r.run_id), [first.run_id]);
  await assert.rejects(planlock.listRuns({ status: "sideways" }), (e) => e.kind === "invalid_query");
});
