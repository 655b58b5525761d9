/**
 * A thin layer over the types generated from planlock's `/openapi.json` (`schema.d.ts`):
 * `act`, `run`, `wait`, `listRuns`, streaming a run's events (NDJSON), errors carrying the
 * API's `kind` and `message` (`unreachable` when the server cannot be reached), and webhook
 * signature verification. Results narrow on `status`:
 *
 *     const planlock = new Planlock("http://127.0.0.1:8080", { token: "..." });
 *     const result = await planlock.run(plan, { allowed_hosts: ["127.0.0.1"] });
 *     if (result.status === "failed") console.log(result.failed_step, result.error.message);
 */

import { createHmac, timingSafeEqual } from "node:crypto";

import type { components } from "./schema.js";

export type Schemas = components["schemas"];
/** A run's result as the API describes it; [`Result`] narrows it on `status`. */
export type RunResult = Schemas["RunResult"];
/** A run that reached its `done` step (or its last one): no error. */
export type Succeeded = RunResult & { status: "succeeded"; error?: null; failed_step?: null };
/** A run that stopped at a step: which one, and why in one sentence. */
export type Failed = RunResult & { status: "failed"; error: Schemas["StepError"]; failed_step: number };
/** A run cancelled (by `cancel`, or the server shutting down). */
export type Cancelled = RunResult & { status: "cancelled" };
/** A run that ended: `if (result.status === "failed") result.error.message`. */
export type Result = Succeeded | Failed | Cancelled;
/** `act`'s result: the run's, with the plan it made beside it. */
export type ActResult = Result & { planning: Schemas["Planned"] };
export type Planned = Schemas["Planned"];
export type Accepted = Schemas["Accepted"];
export type Plan = Schemas["Plan"];
export type ActBody = Schemas["ActBody"];
export type RunBody = Schemas["RunBody"];
export type PlansBody = Schemas["PlansBody"];
/** A page of runs, newest first, and where the next page starts. */
export type RunList = Schemas["RunList"];
/** A run while it goes on (`queued`, `running`), else its result. */
export type RunView = Result | Schemas["RunProgress"];
/** One NDJSON line of a streamed run: `planned`, each event, then `result`. */
export type StreamLine = { event: string } & Record<string, unknown>;

/** The header a webhook delivery is signed in: `t=UNIX_SECONDS,v1=HEX`. */
export const SIGNATURE_HEADER = "Planlock-Signature";

/** An answer of the API that is not a success: its `kind`, `message` and HTTP `status`. A
 * server that cannot be reached is kind `unreachable`, status 0. */
export class PlanlockError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
    readonly problems: Schemas["Problem"][] = [],
  ) {
    super(`${kind}: ${message}`);
    this.name = "PlanlockError";
  }
}

export interface Options {
  /** The server's bearer token (`PLANLOCK_TOKEN`), when it has one. */
  token?: string;
}

type Ask = Partial<Omit<ActBody, "goal">>;
type RunAsk = Partial<Omit<RunBody, "plan">>;

const ENDED = new Set(["succeeded", "failed", "cancelled"]);

/** A planlock server, e.g. `http://127.0.0.1:8080`. */
export class Planlock {
  readonly baseUrl: string;
  private readonly token?: string;

  constructor(baseUrl: string, options: Options = {}) {
    this.baseUrl = baseUrl.replace(/\/$/, "");
    this.token = options.token;
  }

  /** Plans `goal` with one model call, then runs the plan: the result (its `planning`
   * beside it) once it ended, or with `wait: false` the accepted run at once. */
  act(goal: string, ask?: Ask & { wait?: true }): Promise<ActResult>;
  act(goal: string, ask: Ask & { wait: false }): Promise<Accepted>;
  async act(goal: string, ask: Ask & { wait?: boolean } = {}): Promise<ActResult | Accepted> {
    const { wait = true, ...rest } = ask;
    return this.json("POST", "/v1/act", { goal, ...rest }, wait ? {} : { prefer: "respond-async" });
  }

  /** Replays `plan` with no model, answered as `act` is. */
  run(plan: Plan | string, ask?: RunAsk & { wait?: true }): Promise<Result>;
  run(plan: Plan | string, ask: RunAsk & { wait: false }): Promise<Accepted>;
  async run(plan: Plan | string, ask: RunAsk & { wait?: boolean } = {}): Promise<Result | Accepted> {
    const { wait = true, ...rest } = ask;
    return this.json("POST", "/v1/runs", { plan, ...rest }, wait ? {} : { prefer: "respond-async" });
  }

  /** Plans `goal` without running it: the plan, its review and its questions. */
  async plan(goal: string, ask: Partial<Omit<PlansBody, "goal">> = {}): Promise<Planned> {
    return this.json("POST", "/v1/plans", { goal, ...ask });
  }

  /** The run's result once it ended, else its progress. */
  async getRun(runId: string): Promise<RunView> {
    return this.json("GET", `/v1/runs/${encodeURIComponent(runId)}`);
  }

  /** Cancels a queued or running run. */
  async cancel(runId: string): Promise<RunView> {
    return this.json("DELETE", `/v1/runs/${encodeURIComponent(runId)}`);
  }

  /** A page of runs, newest first (`status` keeps runs in that state); pass the page's
   * `next_cursor` as `cursor` for the next one. */
  async listRuns(query: { status?: string; limit?: number; cursor?: string } = {}): Promise<RunList> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) params.set(key, String(value));
    }
    const q = params.toString();
    return this.json("GET", `/v1/runs${q ? `?${q}` : ""}`);
  }

  /** Polls the run until it ended; its result. Rejects after `timeoutMs`. */
  async wait(runId: string, timeoutMs = 660_000, everyMs = 500): Promise<Result> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = (await this.getRun(runId)) as Record<string, unknown>;
      if (ENDED.has(run.status as string) && Array.isArray(run.steps)) {
        return run as unknown as Result;
      }
      if (Date.now() >= deadline) {
        throw new Error(`run ${runId} had not ended after ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /** Starts a run (a plan, or `{goal}` to plan first) and yields each line as it happens:
   * `planned` (for a goal), each event, then the result (`event: "result"`). */
  async *stream(what: { plan: Plan | string } | { goal: string }, ask: RunAsk = {}): AsyncGenerator<StreamLine> {
    const path = "goal" in what ? "/v1/act" : "/v1/runs";
    const response = await this.request("POST", path, { ...what, ...ask }, { accept: "application/x-ndjson" });
    if (!response.ok) throw await errorOf(response);
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) yield JSON.parse(line) as StreamLine;
      }
    }
    if (buffered.trim()) yield JSON.parse(buffered) as StreamLine;
  }

  private async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const all: Record<string, string> = { ...headers };
    if (body !== undefined) all["content-type"] = "application/json";
    if (this.token) all.authorization = `Bearer ${this.token}`;
    try {
      return await fetch(this.baseUrl + path, {
        method,
        headers: all,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      // fetch rejects only when no answer came: the server is down or unreachable.
      const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
      throw new PlanlockError(
        0,
        "unreachable",
        `cannot reach the planlock server at ${this.baseUrl} (${String(e)}${cause}): is \`planlock serve\` running there?`,
      );
    }
  }

  private async json<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const response = await this.request(method, path, body, headers);
    if (!response.ok) throw await errorOf(response);
    return (await response.json()) as T;
  }
}

async function errorOf(response: Response): Promise<PlanlockError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as Schemas["ErrorBody"];
    return new PlanlockError(response.status, error.kind, error.message, error.problems ?? []);
  } catch {
    return new PlanlockError(response.status, "http_error", text.slice(0, 500));
  }
}

/** Whether `body` (the raw bytes received) was signed by a planlock server holding `secret`
 * (`PLANLOCK_WEBHOOK_SECRET`); `signature` is the `Planlock-Signature` header. A signature
 * older than `toleranceSeconds` is refused (a replay); `null` accepts any age. */
export function verifyWebhook(
  secret: string,
  body: Uint8Array | string,
  signature: string,
  toleranceSeconds: number | null = 300,
  nowSeconds: number = Date.now() / 1000,
): boolean {
  const parts = new Map(
    signature.split(",").filter((p) => p.includes("=")).map((p) => {
      const i = p.indexOf("=");
      return [p.slice(0, i), p.slice(i + 1)] as [string, string];
    }),
  );
  const t = Number(parts.get("t"));
  const given = parts.get("v1");
  if (!Number.isInteger(t) || !given) return false;
  if (toleranceSeconds !== null && Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
