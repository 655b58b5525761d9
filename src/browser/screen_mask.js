// Where a screenshot must be painted over before anyone sees it, in CSS pixels of the
// viewport, when there is anything to hide (`values`: secrets, emailed codes):
// - every element whose value, placeholder, alt text or visible text holds one of `values`,
//   in any letter case and however its spaces run; the smallest element that holds it
//   whole, so the rest of the page stays readable;
// - every place whose pixels this script cannot read, whatever it shows: a frame (or object,
//   embed) whose document it cannot open (another origin's, a sandboxed one), a canvas, a
//   video playing a stream and an image or video made in the page (a `blob:` or `data:`
//   URL): a page that read a secret can draw it there, and nothing tells what those pixels
//   say.
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
  // The lengths in a computed style, in px (a percentage counted as a percentage of `size`).
  const lengths = (value, size) =>
    [...(value || "").matchAll(/(-?[\d.]+)(px|%)/g)]
      .map(([, n, unit]) => Math.abs(parseFloat(n)) * (unit === "%" ? size / 100 : 1))
      .reduce((a, b) => a + b, 0);
  // How far beyond its boxes copies of an element's paint may fall: a text-shadow (the
  // nearest one applies), drop-shadows and box reflections of it and of every element around
  // it, up through shadow roots and same-origin frames.
  const reach = (el) => {
    let shadow = 0;
    let copies = 0;
    for (let a = el; a; ) {
      const cs = a.ownerDocument.defaultView.getComputedStyle(a);
      const r = a.getBoundingClientRect();
      const size = Math.max(r.width, r.height);
      shadow = Math.max(shadow, lengths(cs.textShadow, size));
      copies += lengths(cs.filter, size);
      const reflect = cs.webkitBoxReflect;
      if (reflect && reflect !== "none") copies += size + lengths(reflect, size);
      const root = a.getRootNode();
      a = a.parentElement || root.host || (root.defaultView && root.defaultView.frameElement) || null;
    }
    return shadow + copies;
  };
  const push = (r, dx, dy, far) => {
    if (r.width > 0 && r.height > 0) {
      boxes.push([r.left + dx - far, r.top + dy - far, r.width + 2 * far, r.height + 2 * far]);
    }
  };
  const add = (el, dx, dy) => {
    const far = reach(el);
    for (const r of el.getClientRects()) push(r, dx, dy, far);
    // Text that overflows the element's box is drawn outside it: its line boxes too.
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    for (const r of range.getClientRects()) push(r, dx, dy, far);
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
  const made = (src) => /^(blob|data):/i.test(src || "");
  const drawn = (el) =>
    el.tagName === "CANVAS" ||
    (el.tagName === "VIDEO" && (el.srcObject || made(el.currentSrc || el.src))) ||
    (el.tagName === "IMG" && made(el.currentSrc || el.src));
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
