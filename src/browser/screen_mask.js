// Where a screenshot must be painted over before anyone sees it, in CSS pixels of the
// viewport, when there is anything to hide (`values`: secrets, emailed codes):
// - every element whose value, placeholder, alt text or visible text holds one of `values`,
//   in any letter case and however its spaces run; the smallest element that holds it
//   whole, so the rest of the page stays readable;
// - every place whose pixels this script cannot read, whatever it shows: a frame (or object,
//   embed) whose document it cannot open (another origin's, a sandboxed one), a canvas, a
//   video playing a stream and an image made in the page (a `blob:` or `data:` URL): a page
//   that read a secret can draw it there, and nothing tells what those pixels say.
// Open shadow roots and same-origin frames included. Closed shadow roots and CSS generated
// content are found by Chromium's layout snapshot instead (shot/layout.rs). Evaluated in
// planlock's isolated world.
(values) => {
  const fold = (s) => (s || "").replace(/\s+/g, " ").toLowerCase();
  const wanted = values.map(fold).filter((v) => v.trim());
  const holds = (s) => {
    const t = fold(s);
    return wanted.some((v) => t.includes(v));
  };
  const FIELDS = new Set(["INPUT", "TEXTAREA", "SELECT"]);
  const SILENT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD"]);
  const EMBEDS = new Set(["IFRAME", "FRAME", "OBJECT", "EMBED", "FENCEDFRAME", "PORTAL"]);
  const boxes = [];
  const add = (el, dx, dy) => {
    for (const r of el.getClientRects()) {
      if (r.width > 0 && r.height > 0) boxes.push([r.left + dx, r.top + dy, r.width, r.height]);
    }
  };
  // The document an embedding element shows, when this world may read it.
  const embedded = (el) => {
    try {
      return el.contentDocument || (el.getSVGDocument && el.getSVGDocument()) || null;
    } catch (e) {
      return null;
    }
  };
  // Pixels a script made: nothing in the DOM says what they show.
  const drawn = (el) =>
    el.tagName === "CANVAS" ||
    (el.tagName === "VIDEO" && el.srcObject) ||
    (el.tagName === "IMG" && /^(blob|data):/i.test(el.currentSrc || el.src || ""));
  const walk = (root, dx, dy) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot, dx, dy);
      if (EMBEDS.has(el.tagName)) {
        const doc = embedded(el);
        if (doc) {
          const r = el.getBoundingClientRect();
          walk(doc, dx + r.left + el.clientLeft, dy + r.top + el.clientTop);
        } else {
          add(el, dx, dy);
        }
        continue;
      }
      if (SILENT.has(el.tagName)) continue;
      if (drawn(el)) {
        add(el, dx, dy);
        continue;
      }
      if (FIELDS.has(el.tagName)) {
        const shown = el.tagName === "SELECT"
          ? [...el.selectedOptions].map((o) => o.label).join(" ")
          : el.value;
        // A placeholder shows while the field is empty; an image button's alt while its
        // image is missing.
        const said = [shown, el.getAttribute("value"), el.placeholder, el.alt];
        if (said.some(holds)) add(el, dx, dy);
        continue;
      }
      if (el.tagName === "IMG" && holds(el.alt)) {
        add(el, dx, dy);
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
