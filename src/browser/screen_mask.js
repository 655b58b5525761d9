// Where a screenshot must be painted over before anyone sees it: the boxes, in CSS pixels of
// the viewport, of every element whose value or visible text holds one of `values` (a
// secret, an emailed code), in any letter case and however its spaces run; the smallest
// element that holds it whole, so the rest of the page stays readable. Open shadow roots and
// same-origin frames included. Evaluated in planlock's isolated world.
(values) => {
  const fold = (s) => (s || "").replace(/\s+/g, " ").toLowerCase();
  const wanted = values.map(fold).filter((v) => v.trim());
  const holds = (s) => {
    const t = fold(s);
    return wanted.some((v) => t.includes(v));
  };
  const FIELDS = new Set(["INPUT", "TEXTAREA", "SELECT"]);
  const SILENT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD"]);
  const boxes = [];
  const add = (el, dx, dy) => {
    for (const r of el.getClientRects()) {
      if (r.width > 0 && r.height > 0) boxes.push([r.left + dx, r.top + dy, r.width, r.height]);
    }
  };
  const walk = (root, dx, dy) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot, dx, dy);
      if (el.tagName === "IFRAME") {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc) {
          const r = el.getBoundingClientRect();
          walk(doc, dx + r.left + el.clientLeft, dy + r.top + el.clientTop);
        }
        continue;
      }
      if (SILENT.has(el.tagName)) continue;
      if (FIELDS.has(el.tagName)) {
        const shown = el.tagName === "SELECT"
          ? [...el.selectedOptions].map((o) => o.label).join(" ")
          : el.value;
        if (holds(shown) || holds(el.getAttribute("value"))) add(el, dx, dy);
        continue;
      }
      // The text a person sees (innerText: rendered text only), checked where the cheap
      // textContent says it may be.
      const seen = (n) => holds(n.textContent) && holds(n.innerText ?? n.textContent);
      if (!seen(el)) continue;
      // A child that shows it whole is painted instead: the smallest box that hides it.
      if ([...el.children].some((c) => !SILENT.has(c.tagName) && seen(c))) continue;
      add(el, dx, dy);
    }
  };
  if (wanted.length) walk(document, 0, 0);
  return { boxes, dpr: window.devicePixelRatio || 1 };
}
