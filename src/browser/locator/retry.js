  // ---- one attempt, dispatched by the operation ----
  // Each operation is a function of the part it belongs to: find.js reads, act.js acts,
  // watch.js watches what a click did.
  /** @type {{ [op in Step["op"]]: (req: Asked<Extract<Operation, { op: op }>>) => Verdict<unknown> | Promise<Verdict<unknown>> }} */
  const OPERATIONS = { click, fill, code, text, extract, accessible, sent, errors, watch, effect, asking, quiet, pending };
  // A document still being parsed holds only its beginning: choosing, typing or reading there
  // would act on part of the page (two of six code boxes, half an article, one of two
  // buttons). Text someone waits for may be seen before the rest has arrived; what a click
  // did, and how long the page has been quiet, are read as they stand.
  const WHILE_LOADING = new Set(["text", "effect", "pending", "quiet"]);
  /** @returns {Promise<Verdict<unknown>>} */
  async function attempt() {
    fresh();
    if (!WHILE_LOADING.has(req.op) && DOC.readyState.call(document) === "loading") return { state: "loading" };
    /** @type {((req: Step) => Verdict<unknown> | Promise<Verdict<unknown>>) | null} */
    const operation = Object.hasOwn(OPERATIONS, req.op) ? /** @type {any} */ (OPERATIONS[req.op]) : null;
    return operation ? operation(req) : rejected({ kind: "unknown_operation", op: String(req.op) });
  }

  // What the page offers instead of what the step looked for, on its last answer: the texts of
  // its controls (click), its fields' labels, aria-labels, placeholders, names and ids (fill,
  // code), its lines of text (text, extract). Each a fact of one kind, one `key` apart; the
  // Rust side writes names and ids as selectors and picks the ones closest to the query.
  function nearby() {
    const text = (t, max) => (t && t.length < max ? [{ kind: "text", text: t }] : []);
    if (req.op === "click") {
      return everything().filter((el) => el.matches(INTERACTIVE) && isVisible(el))
        .flatMap((el) => text(norm(textOf(el)) || norm(attr(el, "aria-label")), 80));
    }
    if (req.op === "fill" || req.op === "code") {
      const offers = [];
      for (const el of everything()) {
        if (tagOf(el) === "LABEL") offers.push(...text(norm(el.innerText), 80));
        if (!["INPUT", "TEXTAREA", "SELECT"].includes(tagOf(el))) continue;
        for (const a of ["aria-label", "placeholder", "name", "id"]) {
          const v = attr(el, a);
          if (!v) continue;
          // As `#id` and `[name=…]` these stay under 80 characters too.
          if (a === "id" && el.id.length < 79) offers.push({ kind: "id", id: el.id });
          else if (a === "name" && v.length < 73) offers.push({ kind: "name", name: v });
          else if (a !== "id" && a !== "name") offers.push(...text(norm(v), 80));
        }
      }
      return offers;
    }
    if (req.op === "text" || req.op === "extract") {
      return (bodyOf(document) ? bodyOf(document).innerText : "").split("\n").flatMap((l) => text(norm(l), 120));
    }
    return [];
  }
  // Offers once each, the first 60.
  function offered() {
    const keys = new Set();
    const out = [];
    for (const o of nearby()) {
      const key = `${o.kind}:${o.text ?? o.name ?? o.id}`;
      if (!keys.has(key)) { keys.add(key); out.push(o); }
    }
    return out.slice(0, 60);
  }

  /** @type {Waiting} */
  let last = { state: "not_found" };
  for (;;) {
    /** @type {Verdict<unknown>} */
    let verdict;
    try {
      verdict = await attempt();
    } catch (e) {
      const err = /** @type {any} */ (e);
      verdict = rejected({ kind: "script", message: String(err && err.message || err) });
    }
    if (verdict.state === "found" || verdict.state === "rejected") return plain(verdict);
    last = verdict;
    const left = budget - (performance.now() - started);
    if (left <= 0) break;
    await nextChange(left);
  }
  return plain({ ...last, seen: offered() });
};
}
