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

  // The answer as JSON the Rust side reads: only strings, numbers, booleans, null, arrays and
  // plain objects. Anything else that reached it (an element a page put where a string was
  // read) becomes the words that describe it, so no page can make an answer unreadable.
  function plain(v) {
    if (v === null || v === undefined) return null;
    if (typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") return Number.isFinite(v) ? v : null;
    if (Array.isArray(v)) return v.map(plain);
    if (typeof v === "object") {
      if (typeof v.nodeType === "number") {
        try { return v.nodeType === Node.ELEMENT_NODE ? describeEl(v) : String(v.textContent || ""); } catch (e) { return ""; }
      }
      const proto = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) {
        const out = {};
        for (const [k, x] of Object.entries(v)) if (x !== undefined && typeof x !== "function") out[k] = plain(x);
        return out;
      }
    }
    return String(v);
  }

  let last = null;
  for (;;) {
    let verdict;
    try {
      verdict = await attempt();
    } catch (e) {
      verdict = rejected({ kind: "script", message: String(e && e.message || e) });
    }
    if (verdict.state === "found" || verdict.state === "rejected") return plain(verdict);
    last = verdict;
    const left = budget - (performance.now() - started);
    if (left <= 0) break;
    await new Promise(/** @param {(v?: unknown) => void} res */ (res) => {
      const done = () => { mo.disconnect(); clearTimeout(t); res(); };
      const mo = new MutationObserver(done);
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const t = setTimeout(done, Math.min(left, 40));
    });
  }
  return plain({ ...last, seen: offered() });
};
}
