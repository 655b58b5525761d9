// ---- the types of what the Rust side sends and reads (JSDoc only: no code) ----
// They mirror browser/locate.rs (`Operation`, `Verdict`, the facts of each operation),
// browser/facts.rs, browser/explain.rs and browser/outline.rs; a test there reads the op names
// of `Operation` here and in the Rust enum, so neither list drifts from the other.
//
// The request: one operation (tagged by `op`) with how long it may wait in the page.
/**
 * @typedef {{ op: "click", text: string | null, selector: string | null, describe: string }} ClickOp
 * @typedef {{ op: "fill", label: string | null, selector: string | null, value: string, sensitive: boolean, describe: string }} FillOp
 * @typedef {{ op: "code", selector: string, code: string }} CodeOp
 * @typedef {{ op: "text", text: string }} TextOp
 * @typedef {{ op: "extract", selector: string | null }} ExtractOp
 * @typedef {{ op: "sent" }} SentOp
 * @typedef {{ op: "errors", filled: string[], before: FormShape | null, refused: boolean }} ErrorsOp
 * @typedef {{ op: "watch" }} WatchOp
 * @typedef {{ op: "effect" }} EffectOp
 * @typedef {{ op: "pending" }} PendingOp
 * @typedef {{ op: "asking" }} AskingOp
 * @typedef {{ op: "quiet" }} QuietOp
 * @typedef {{ op: "accessible", selector: string }} AccessibleOp
 * @typedef {{ op: "explain", of: ClickOp | FillOp }} ExplainOp
 * @typedef {ClickOp | FillOp | CodeOp | TextOp | ExtractOp | SentOp | ErrorsOp | WatchOp | EffectOp | PendingOp | AskingOp | QuietOp | AccessibleOp | ExplainOp} Operation
 * @typedef {Operation & { budget_ms: number }} Request
 * @typedef {Exclude<Operation, ExplainOp> & { budget_ms: number, explain?: boolean }} Step
 *   The request as the operations read it: an `explain` is the click or fill it wraps.
 */
/**
 * @template {Operation} O
 * @typedef {O & { budget_ms: number, explain?: boolean }} Asked
 *   One operation's request, as its function reads it.
 */
//
// The verdict, tagged by `state`.
/**
 * @template T
 * @typedef {{ state: "found", facts: T }} Found
 */
/**
 * @typedef {{ state: "not_found", seen?: Offer[] }} NotFound
 * @typedef {{ state: "not_actionable", element: string, blocker: Blocker }} NotActionable
 * @typedef {{ state: "loading" }} Loading
 * @typedef {{ state: "rejected", rejection: Rejection }} Rejected
 * @typedef {NotFound | NotActionable | Loading} Waiting
 *   Not yet: the step waits, and is tried again.
 * @typedef {{ kind: "text", text: string } | { kind: "name", name: string } | { kind: "id", id: string }} Offer
 * @typedef {{ element: string, role?: string | null, name?: string | null }} Cover
 * @typedef {{ kind: "removed" | "hidden" | "disabled" | "not_editable" | "moving" | "animating" | "inert" } | { kind: "covered", by: Cover | null }} Blocker
 * @typedef {{ kind: "rewritten", element: string, holds: string | null }
 *   | { kind: "no_option", element: string, value: string, options: string[] }
 *   | { kind: "too_few_boxes", characters: number, boxes: number }
 *   | { kind: "ambiguous", candidates: (Candidate & { destination: string | null })[] }
 *   | { kind: "user_content", element: string }
 *   | { kind: "not_a_control", wanted: string | null, matched: Candidate[] }
 *   | { kind: "script", message: string }
 *   | { kind: "unknown_operation", op: string }} Rejection
 */
/**
 * @template T
 * @typedef {Found<T> | Waiting | Rejected} Verdict
 */
//
// The facts of each operation.
/**
 * @typedef {{ element: string, tag: string, text: string, role: string, landmark: string, form: string | null,
 *   submits?: boolean, in_filled_form?: boolean, covered?: boolean, covered_by?: string | null, inert?: boolean }} Candidate
 * @typedef {{ candidates: number, decided_by: string, ambiguous: boolean, runners_up: Candidate[], chosen: Candidate,
 *   hidden?: number, behind_modal?: number, covered?: number }} Why
 *   Why the chosen element: how many candidates, the rule that decided, what came next.
 * @typedef {{ strategy: string | null, element?: string, x?: number, y?: number, key?: string, locate_ms?: number,
 *   passed_over?: Candidate[], fallback?: string, boxes?: number, form?: string | null, field?: string | null,
 *   action?: string, method?: string } & Partial<Why>} Located
 *   What `click`, `fill` and `code` found and did (facts.rs `Located`, `Filled`).
 * @typedef {Candidate & { match: string | null, visible: boolean, ranked: boolean }} Considered
 * @typedef {{ strategy: string | null, key?: string, candidates: Considered[], rules: { rule: string, kept: (number | undefined)[] }[],
 *   decided_by: string | null, chosen: number | null | undefined }} Explained
 *   What an `explain` answers (explain.rs).
 * @typedef {{ field: string, message: string }} InvalidField
 * @typedef {{ invalid: InvalidField[] }} FormCheck
 * @typedef {{ field: string, said: string } | { field: string, invalid: true } | { said: string }} FormError
 * @typedef {{ errors: FormError[], form_back: boolean }} FormErrors
 * @typedef {{ fields: { name: string, value: string | null }[], text: string }} FormShape
 *   The form this run filled as it was before a click; kept by the Rust side, opaque there.
 * @typedef {{ shape: FormShape | null }} Watched
 * @typedef {{ kind: "added", el: string } | { kind: "added_text", text: string, el: string }
 *   | { kind: "attribute", name: string | null, el: string } | { kind: "text", el: string | null }
 *   | { kind: "removed", el: string }} Change
 * @typedef {{ state: string, el: string, before?: string, after?: string }} StateChange
 * @typedef {{ replaced?: boolean, changes?: Change[], changed?: number, states?: StateChange[], focus?: string | null,
 *   submitted?: boolean, filled_gone?: boolean, echoed?: boolean, after_ms?: number }} PageEffect
 *   What a click did so far (facts.rs `PageEffect`).
 * @typedef {{ dialog: string | null }} Asking
 * @typedef {{ quiet_ms: number | null }} Quiet
 * @typedef {{ unsent: boolean }} PendingForm
 * @typedef {{ elements: { element: string, role: string, name: string }[] }} AccessibleElements
 * @typedef {{ text: string, element: string }} Extracted
 * @typedef {{ el: Element | null, records: number, changes: Change[], keys: string[], first: number | null, started: number,
 *   focus: Element | null, states: [Element, Record<string, unknown>][], filled: boolean, submits: number, values: string[],
 *   echoed: boolean, observer?: MutationObserver }} ClickWatch
 *   A click being watched (kept in the document, for `effect` and `asking`).
 * @typedef {{} } Seen
 *   `text` answers no facts: found is all it says.
 */
//
// The look's outline (outline.rs): its own script's request and answer.
/**
 * @typedef {{ budget_ms: number }} OutlineRequest
 * @typedef {{ level: number, text: string }} Heading
 * @typedef {{ label: string, kind: string, name: string, id: string, required: boolean, autocomplete: string,
 *   placeholder: string, options: string[] }} Field
 * @typedef {{ text: string, submit: boolean }} Button
 * @typedef {{ name: string, fields: Field[], buttons: Button[] }} Form
 * @typedef {{ landmark: string, role: string, text: string }} Control
 * @typedef {{ title: string, headings: Heading[], forms: Form[], outside: Control[], prose: string }} Outline
 */
