// planlock's one locator engine. Evaluated as `(SOURCE)(request)` in the page's main world:
// finds the target of a step (text, label, selector; open shadow roots and same-origin
// iframes included), auto-waits until it is actionable, performs in-page actions, and
// returns a plain JSON verdict. Waiting happens here, inside the page, so a step costs one
// CDP round trip however long it waits; the Rust side re-evaluates after navigations.
async (req) => {
  const started = performance.now();
  const budget = req.budget_ms;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim().toLowerCase();
  const squash = (s) => (s || "").replace(/\s+/g, "").toLowerCase();

  // ---- the tree: document, open shadow roots, same-origin iframes, in document order ----
  function collect(root, out, frames) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    let node = root.nodeType === Node.ELEMENT_NODE ? root : walker.nextNode();
    while (node) {
      out.push(node);
      if (node.shadowRoot) collect(node.shadowRoot, out, frames);
      if (node.tagName === "IFRAME" || node.tagName === "FRAME") {
        let doc = null;
        try { doc = node.contentDocument; } catch (e) { doc = null; }
        if (doc && doc.documentElement) {
          frames.set(doc, node);
          collect(doc.documentElement, out, frames);
        }
      }
      node = walker.nextNode();
    }
  }
  function everything() {
    const out = [];
    const frames = new Map();
    if (document.documentElement) collect(document.documentElement, out, frames);
    return out;
  }

  // ---- element state ----
  const view = (el) => el.ownerDocument.defaultView;
  function isVisible(el) {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) {
      return false;
    }
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return true;
    // display: contents and similar: visible if a child is.
    const st = view(el).getComputedStyle(el);
    if (st.display === "contents") {
      for (const c of el.children) if (isVisible(c)) return true;
    }
    return false;
  }
  function isEnabled(el) {
    if (el.disabled === true) return false;
    if (el.closest && el.closest("fieldset[disabled]") && !el.closest("legend")) return false;
    const ad = el.closest && el.closest("[aria-disabled]");
    if (ad && ad.getAttribute("aria-disabled") === "true") return false;
    return true;
  }
  const TEXT_INPUTS = new Set(["", "text", "email", "password", "search", "tel", "url", "number",
    "date", "datetime-local", "month", "time", "week"]);
  function isEditable(el) {
    if (!isEnabled(el)) return false;
    const tag = el.tagName;
    if (tag === "INPUT") return TEXT_INPUTS.has((el.getAttribute("type") || "").toLowerCase()) && !el.readOnly;
    if (tag === "TEXTAREA") return !el.readOnly;
    if (tag === "SELECT") return true;
    return el.isContentEditable === true;
  }
  function frameOffset(el) {
    let x = 0, y = 0;
    let win = view(el);
    while (win && win.frameElement) {
      const fe = win.frameElement;
      const r = fe.getBoundingClientRect();
      const st = win.parent.getComputedStyle(fe);
      x += r.left + fe.clientLeft + parseFloat(st.paddingLeft || "0");
      y += r.top + fe.clientTop + parseFloat(st.paddingTop || "0");
      win = win.parent;
    }
    return { x, y };
  }
  function describeEl(el) {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    else if (el.classList && el.classList.length) s += "." + [...el.classList].slice(0, 2).join(".");
    const t = norm(textOf(el)).slice(0, 40);
    return t ? `<${s}> "${t}"` : `<${s}>`;
  }
  function textOf(el) {
    if (el.tagName === "INPUT") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (["submit", "button", "reset"].includes(type)) return el.value || (type === "submit" ? "Submit" : "");
      if (type === "image") return el.alt || "";
      return "";
    }
    return el.innerText !== undefined ? el.innerText : el.textContent;
  }
  const INTERACTIVE = "button, a[href], a, [role=button], [role=link], [role=menuitem], [role=tab], " +
    "[role=checkbox], [role=option], input[type=submit], input[type=button], input[type=reset], " +
    "input[type=image], input[type=checkbox], input[type=radio], label, summary, [onclick]";
  function interactiveAncestor(el) {
    let node = el;
    while (node) {
      if (node.nodeType === Node.ELEMENT_NODE && node.matches(INTERACTIVE)) return node;
      node = node.parentElement || (node.parentNode && node.parentNode.host) || null;
    }
    return null;
  }
  function selectorAll(sel) {
    const out = [];
    const seen = new Set();
    const roots = [document];
    for (const el of everything()) {
      if (el.shadowRoot) roots.push(el.shadowRoot);
      if (el.tagName === "HTML" && el.ownerDocument !== document) roots.push(el.ownerDocument);
    }
    for (const r of roots) {
      for (const el of r.querySelectorAll(sel)) {
        if (!seen.has(el)) { seen.add(el); out.push(el); }
      }
    }
    return out;
  }

  // ---- finding ----
  function byText(query) {
    const q = norm(query);
    const qs = squash(query);
    const all = everything();
    const hits = [];
    for (const el of all) {
      if (el.tagName === "SCRIPT" || el.tagName === "STYLE" || el.tagName === "HEAD" || el.tagName === "TITLE") continue;
      if (el.tagName === "INPUT") {
        const t = norm(textOf(el));
        if (t && t.includes(q)) hits.push(el);
        continue;
      }
      const aria = norm(el.getAttribute("aria-label"));
      if (aria && aria.includes(q) && el.matches(INTERACTIVE)) { hits.push(el); continue; }
      if (!squash(el.textContent).includes(qs)) continue;
      if (norm(textOf(el)).includes(q)) hits.push(el);
    }
    // Innermost matches only: drop an element when a descendant matched too.
    const set = new Set(hits);
    const innermost = hits.filter((el) => {
      for (const other of set) if (other !== el && el.contains(other)) return false;
      return true;
    });
    const ranked = [];
    const seen = new Set();
    innermost.forEach((el, order) => {
      const ia = interactiveAncestor(el);
      const target = ia || el;
      if (seen.has(target)) return;
      seen.add(target);
      const t = norm(textOf(target)) || norm(target.getAttribute("aria-label"));
      const exact = t === q || norm(textOf(el)) === q || norm(el.getAttribute && el.getAttribute("aria-label")) === q;
      ranked.push({ el: target, exact, interactive: !!ia, order });
    });
    ranked.sort((a, b) => (b.exact - a.exact) || (b.interactive - a.interactive) || (a.order - b.order));
    return ranked;
  }

  function labelled(query) {
    const q = norm(query);
    const found = [];
    const all = everything();
    const add = (control, exact, source, order) => {
      if (control) found.push({ el: control, exact, source, order });
    };
    all.forEach((el, order) => {
      if (el.tagName === "LABEL") {
        const t = norm(el.innerText);
        if (t && t.includes(q)) {
          const control = el.control || el.querySelector("input, textarea, select, [contenteditable]");
          add(control, t === q, control && el.htmlFor ? 0 : 1, order);
        }
      }
      const aria = norm(el.getAttribute("aria-label"));
      if (aria && aria.includes(q) && !["LABEL", "BUTTON", "A"].includes(el.tagName)) add(el, aria === q, 2, order);
      const lb = el.getAttribute("aria-labelledby");
      if (lb) {
        const root = el.getRootNode();
        const t = norm(lb.split(/\s+/).map((id) => {
          const r = root.getElementById ? root.getElementById(id) : null;
          return r ? r.innerText || r.textContent : "";
        }).join(" "));
        if (t && t.includes(q)) add(el, t === q, 3, order);
      }
      const ph = norm(el.getAttribute("placeholder"));
      if (ph && ph.includes(q)) add(el, ph === q, 4, order);
    });
    found.sort((a, b) => (b.exact - a.exact) || (a.source - b.source) || (a.order - b.order));
    const seen = new Set();
    return found.filter((f) => (seen.has(f.el) ? false : (seen.add(f.el), true)));
  }

  // ---- actionability ----
  function hitTarget(el) {
    const r = el.getBoundingClientRect();
    const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
    const root = el.getRootNode();
    const at = (root.elementFromPoint ? root : el.ownerDocument).elementFromPoint(cx, cy);
    if (!at) return { ok: false, by: null };
    if (at === el || el.contains(at)) return { ok: true };
    // A label's control, or a host whose shadow content was hit.
    if (el.tagName === "LABEL" && el.control === at) return { ok: true };
    let n = at;
    while (n) { if (n === el) return { ok: true }; n = n.parentNode || n.host; }
    return { ok: false, by: at };
  }
  function inViewport(el) {
    const r = el.getBoundingClientRect();
    const w = view(el);
    return r.bottom > 0 && r.right > 0 && r.top < w.innerHeight && r.left < w.innerWidth;
  }
  const frame = () => new Promise((res) => requestAnimationFrame(() => res()));

  // Checks one candidate; returns null when actionable, else why not.
  function blocker(el, need) {
    if (!el.isConnected) return "was removed from the page";
    if (!isVisible(el)) return "is not visible";
    if (!isEnabled(el)) return "is disabled";
    if (need === "editable" && !isEditable(el)) return "is not editable";
    return null;
  }

  // Whether the page has rendered since its last DOM change, tracked by the watcher installed
  // with the locator in planlock's world (absent when the locator runs in the main world).
  function calm(el) {
    const settled = globalThis.__planlockSettled;
    if (typeof settled !== "function") return false;
    const doc = el.ownerDocument;
    return doc === document && doc.readyState === "complete" && settled()
      && doc.getAnimations().length === 0;
  }

  async function actionable(candidates, need, pointer) {
    let why = null;
    for (const c of candidates) {
      const el = c.el;
      const b = blocker(el, need);
      if (b) { why = why || `${describeEl(el)} ${b}`; continue; }
      if (!pointer) return { el, c };
      let scrolled = false;
      if (!inViewport(el)) {
        el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
        scrolled = true;
      }
      // Stable: the same box over two animation frames (an animation that has not started yet
      // holds still for its first frame), as Playwright checks. A loaded page that is calm (no
      // animations, no DOM change since it last rendered, nothing just scrolled) cannot be
      // moving, so it skips the frames.
      if (scrolled || !calm(el)) {
        const boxes = [el.getBoundingClientRect()];
        await frame();
        boxes.push(el.getBoundingClientRect());
        await frame();
        boxes.push(el.getBoundingClientRect());
        const same = (a, b) => a.top === b.top && a.left === b.left && a.width === b.width && a.height === b.height;
        if (!same(boxes[0], boxes[1]) || !same(boxes[1], boxes[2])) {
          why = why || `${describeEl(el)} is still moving`;
          continue;
        }
      }
      const hit = hitTarget(el);
      if (!hit.ok) {
        why = why || `${describeEl(el)} is covered by ${hit.by ? describeEl(hit.by) : "another element"}`;
        continue;
      }
      return { el, c };
    }
    return { why };
  }

  // ---- actions ----
  function setNativeValue(el, value) {
    const proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype
      : el.tagName === "SELECT" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const own = Object.getOwnPropertyDescriptor(proto, "value");
    const w = view(el);
    // Elements of an iframe have their own prototypes.
    const frameProto = el.tagName === "TEXTAREA" ? w.HTMLTextAreaElement.prototype
      : el.tagName === "SELECT" ? w.HTMLSelectElement.prototype : w.HTMLInputElement.prototype;
    const setter = (Object.getOwnPropertyDescriptor(frameProto, "value") || own).set;
    setter.call(el, value);
  }
  function fire(el, value) {
    const w = view(el);
    el.dispatchEvent(new w.InputEvent("input", { bubbles: true, composed: true, inputType: "insertText", data: value }));
    el.dispatchEvent(new w.Event("change", { bubbles: true }));
  }
  function fillOne(el, value) {
    el.focus();
    if (el.tagName === "SELECT") {
      const v = norm(value);
      const opt = [...el.options].find((o) => norm(o.value) === v || norm(o.label) === v)
        || [...el.options].find((o) => norm(o.label).includes(v));
      if (!opt) return `has no option "${value}" (options: ${[...el.options].map((o) => o.label).slice(0, 8).join(", ")})`;
      setNativeValue(el, opt.value);
      fire(el, opt.value);
      return null;
    }
    if (el.isContentEditable && el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") {
      const sel = view(el).getSelection();
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      sel.removeAllRanges();
      sel.addRange(range);
      el.ownerDocument.execCommand("insertText", false, value);
      return null;
    }
    if (el.value !== "") { setNativeValue(el, ""); fire(el, ""); }
    setNativeValue(el, value);
    fire(el, value);
    return null;
  }

  function where(el) {
    const r = el.getBoundingClientRect();
    const off = frameOffset(el);
    return { x: off.x + r.left + r.width / 2, y: off.y + r.top + r.height / 2 };
  }

  // ---- the operation, retried until actionable or out of budget ----
  async function attempt() {
    switch (req.op) {
      case "click": {
        let strategy = null, candidates = [];
        if (req.text) {
          candidates = byText(req.text);
          if (candidates.length) strategy = candidates[0].exact ? "text" : "text-substring";
        }
        if (!candidates.length && req.selector) {
          candidates = selectorAll(req.selector).map((el, order) => ({ el, exact: true, order }));
          if (candidates.length) strategy = "selector";
        }
        if (!candidates.length) return { pending: "nothing matches" };
        const a = await actionable(candidates, "click", true);
        if (!a.el) return { pending: a.why };
        const p = where(a.el);
        return { ok: true, strategy, x: p.x, y: p.y, element: describeEl(a.el) };
      }
      case "fill": {
        let strategy = null, candidates = [];
        if (req.label) {
          candidates = labelled(req.label);
          if (candidates.length) strategy = ["label", "label", "aria-label", "aria-labelledby", "placeholder"][candidates[0].source];
        }
        if (!candidates.length && req.selector) {
          candidates = selectorAll(req.selector).map((el, order) => ({ el, order }));
          if (candidates.length) strategy = "selector";
        }
        if (!candidates.length) return { pending: "nothing matches" };
        const a = await actionable(candidates, "editable", false);
        if (!a.el) return { pending: a.why };
        const err = fillOne(a.el, req.value);
        if (err) return { fatal: `${describeEl(a.el)} ${err}` };
        const got = a.el.value;
        if (got !== undefined && a.el.tagName !== "SELECT" && got !== req.value) {
          return { fatal: `${describeEl(a.el)} holds "${got}" after typing: the page rejected or rewrote the value` };
        }
        return { ok: true, strategy, element: describeEl(a.el) };
      }
      case "code": {
        const els = selectorAll(req.selector);
        if (!els.length) return { pending: "nothing matches" };
        const live = els.filter((el) => isVisible(el) && isEditable(el));
        if (!live.length) return { pending: `${describeEl(els[0])} ${blocker(els[0], "editable") || "is not editable"}` };
        const compact = req.code.replace(/[\s-]/g, "");
        const single = live.length > 1 && live.every((el) => el.maxLength === 1 || el.getAttribute("maxlength") === "1" || (el.size && el.size <= 2));
        if (single) {
          if (live.length < compact.length) {
            return { fatal: `the code has ${compact.length} characters but ${req.selector} matches ${live.length} boxes` };
          }
          compact.split("").forEach((ch, i) => fillOne(live[i], ch));
          return { ok: true, strategy: "split", boxes: live.length, form: "compact" };
        }
        const el = live[0];
        const max = el.maxLength > 0 ? el.maxLength : Infinity;
        const numeric = (el.getAttribute("type") || "") === "number" || el.getAttribute("inputmode") === "numeric";
        const useCompact = compact !== req.code && (req.code.length > max || numeric);
        const value = useCompact ? compact : req.code;
        const err = fillOne(el, value);
        if (err) return { fatal: `${describeEl(el)} ${err}` };
        return { ok: true, strategy: "selector", form: useCompact ? "compact" : "as shown", element: describeEl(el) };
      }
      case "text": {
        const q = norm(req.text);
        const docs = [document];
        let text = "";
        for (const el of everything()) {
          if (el.shadowRoot) for (const c of el.shadowRoot.children) text += " " + (c.innerText || "");
          if (el.tagName === "HTML" && el.ownerDocument !== document && el.ownerDocument.body) docs.push(el.ownerDocument);
        }
        for (const d of docs) if (d.body) text = d.body.innerText + " " + text;
        return norm(text).includes(q) ? { ok: true } : { pending: "not on the page yet" };
      }
      case "extract": {
        if (req.selector) {
          const els = selectorAll(req.selector);
          const el = els.find(isVisible);
          if (!el) return { pending: els.length ? `${describeEl(els[0])} is not visible` : "nothing matches" };
          return { ok: true, text: (el.innerText || el.textContent || "").trim(), element: describeEl(el) };
        }
        const main = document.querySelector("main, [role=main]") || document.body;
        if (!main) return { pending: "the page has no body yet" };
        return { ok: true, text: (main.innerText || "").trim(), element: main === document.body ? "<body>" : describeEl(main) };
      }
      default:
        return { fatal: `unknown locator operation ${req.op}` };
    }
  }

  // What the page offers instead, for failure messages.
  function nearby() {
    if (req.op === "click") {
      return everything().filter((el) => el.matches(INTERACTIVE) && isVisible(el))
        .map((el) => norm(textOf(el)) || norm(el.getAttribute("aria-label"))).filter((t) => t && t.length < 80);
    }
    if (req.op === "fill" || req.op === "code") {
      const names = [];
      for (const el of everything()) {
        if (el.tagName === "LABEL") names.push(norm(el.innerText));
        for (const a of ["aria-label", "placeholder", "name", "id"]) {
          if (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) && el.getAttribute(a)) {
            names.push(a === "id" ? "#" + el.id : a === "name" ? `[name=${el.getAttribute(a)}]` : norm(el.getAttribute(a)));
          }
        }
      }
      return names.filter((t) => t && t.length < 80);
    }
    if (req.op === "text" || req.op === "extract") {
      return (document.body ? document.body.innerText : "").split("\n").map(norm).filter((t) => t && t.length < 120);
    }
    return [];
  }

  let last = null;
  for (;;) {
    let verdict;
    try {
      verdict = await attempt();
    } catch (e) {
      verdict = { fatal: String(e && e.message || e) };
    }
    if (verdict.ok || verdict.fatal) return verdict;
    last = verdict.pending;
    const left = budget - (performance.now() - started);
    if (left <= 0) break;
    await new Promise((res) => {
      const done = () => { mo.disconnect(); clearTimeout(t); res(); };
      const mo = new MutationObserver(done);
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const t = setTimeout(done, Math.min(left, 40));
    });
  }
  return { pending: last, seen: [...new Set(nearby())].slice(0, 60), url: location.href };
}
