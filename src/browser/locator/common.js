  // ---- what every part uses, the outline's script too: text as compared, the answer ----
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim().toLowerCase();
  const squash = (s) => (s || "").replace(/\s+/g, "").toLowerCase();
  // A text shortened for a description says so with "…": the masking of secrets on the Rust
  // side recognises what a cut left of one by it.
  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + "\u2026" : s);
  // Finding and ranking time of the attempt that succeeded (waiting excluded), to the µs.
  const ms = (t) => Math.round(t * 1000) / 1000;
  // A regular expression's alternatives that are the words of a list, each taken literally.
  const anyOf = (words) => words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  // Text as it reads, whitespace collapsed, case kept.
  const tidy = (s) => (s || "").replace(/\s+/g, " ").trim();

  // The verdicts: done with its facts, or refused (waiting longer would not help).
  /** @type {<T>(facts: T) => Found<T>} */
  const found = (facts) => ({ state: "found", facts });
  /** @type {(why: Rejection) => Rejected} */
  const rejected = (why) => ({ state: "rejected", rejection: why });
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
  // Until the document changes, or 40 ms at most, and never past `left` ms.
  const nextChange = (left) => new Promise(/** @param {(v?: unknown) => void} res */ (res) => {
    const done = () => { mo.disconnect(); clearTimeout(t); res(); };
    const mo = new MutationObserver(done);
    mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const t = setTimeout(done, Math.min(left, 40));
  });
