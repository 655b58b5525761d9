  // ---- a form that came back ----
  // Words that say something went wrong, in a message the page shows after a form was sent.
  const WRONG_WORDS = new RegExp(`\\b(${anyOf(vocabulary.error_words)})\\b`, "i");
  // Words of a class that mark an error message (at the start of a word of it), and good news
  // (a whole word of it).
  const ERROR_MARK = new RegExp(`^(${anyOf(vocabulary.error_marks)})`);
  const SUCCESS_MARK = new Set(vocabulary.success_marks);
  // The controls `selector` matches in `form` (`form=` attributes included), or on the page.
  function controlsOf(form, selector) {
    const all = queryAll(selector);
    return form ? all.filter((c) => formOf(c) === form) : all;
  }
  // The visible controls a person fills, of one form (or of the page).
  function formControls(form) {
    return controlsOf(form, "input, select, textarea")
      .filter((c) => (isTextControl(c) || ["checkbox", "radio"].includes(roleOf(c))) && c.type !== "hidden" && (c.name || c.id) && isVisible(c));
  }
  const lineOf = (l) => tidy(l);
  const wordy = (l) => /\p{L}/u.test(l) && l.length <= 300;
  // The page's text as a person reads it, whitespace collapsed, lower case.
  function pageText() {
    return norm(visibleText([])).slice(0, 50000);
  }
  // A value compared without keeping it (it may be a secret).
  function hashOf(v) {
    let h = 5381;
    for (let i = 0; i < v.length; i++) h = ((h * 33) ^ v.charCodeAt(i)) >>> 0;
    return String(h);
  }
  // The form of the field this run filled last as it stands before a click: its fields (with a
  // hash of what each holds, passwords aside) and the page's text. What came back is compared
  // with it: words it did not show are new.
  function formShape() {
    const ref = globalThis.__planlockLastFilled;
    const el = ref && ref.deref ? ref.deref() : null;
    if (!el || !el.isConnected) return null;
    const fields = formControls(formOf(el)).map((c) => ({
      name: c.name || c.id,
      value: isTextControl(c) && typeof c.value === "string" && c.value && (attr(c, "type") || "").toLowerCase() !== "password" ? hashOf(c.value) : null,
    }));
    return { fields, text: pageText() };
  }
  // The words of an element's class: `has-error Mui-error` reads has, error, mui, error.
  const classWords = (el) => (attr(el, "class") || "").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()
    .split(/[^a-z]+/).filter(Boolean);
  // Whether `el`, or what holds it up to its form, is marked as an error message: an error
  // word in its class (`errorlist`, `invalid-feedback`, `text-danger`), or an alert
  // (`role="alert"`) whose class says no good news (`alert-success`).
  function errorMarked(el) {
    for (let n = el, i = 0; n && i < 4 && !["FORM", "BODY", "DIALOG"].includes(tagOf(n)); n = n.parentElement, i++) {
      const ws = classWords(n);
      if (ws.some((w) => ERROR_MARK.test(w))) return true;
      if ((attr(n, "role") || "").toLowerCase() === "alert" && !ws.some((w) => SUCCESS_MARK.has(w))) return true;
    }
    return false;
  }

  // ---- what a click did ----
  // The controls whose state a click can change without changing the document (checked,
  // selected, value are properties, not attributes): the element's own, its label's, those
  // inside it, and its form's (or the page's, outside any form).
  function statefulAround(el) {
    const out = new Set([el]);
    if (el.control) out.add(el.control);
    if (el.querySelectorAll) for (const c of el.querySelectorAll("input, select, textarea")) out.add(c);
    const form = formOf(el);
    for (const c of controlsOf(form, "input, select, textarea").slice(0, 300)) out.add(c);
    return [...out];
  }
  function stateOf(el) {
    return { checked: el.checked, indeterminate: el.indeterminate, selected: el.selectedIndex, value: typeof el.value === "string" ? el.value : undefined, open: el.open };
  }
  // The focused element, inside open shadow roots and same-origin frames.
  function deepActive() {
    /** @type {Element & { contentDocument?: Document | null }} */
    let a = document.activeElement;
    for (;;) {
      if (a && a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      let inner = null;
      try { inner = a && a.contentDocument && a.contentDocument.activeElement; } catch (e) { inner = null; }
      if (inner && inner !== a.contentDocument.body) { a = inner; continue; }
      return a;
    }
  }
  // What the run typed into the form it filled last, as the page could show it back: its
  // controls' values (never a password's; three characters at least), and the code a row of
  // one-character boxes holds together.
  function typedValues() {
    const ref = globalThis.__planlockLastFilled;
    const el = ref && ref.deref ? ref.deref() : null;
    if (!el || !el.isConnected) return [];
    const form = formOf(el);
    const controls = controlsOf(form, "input, textarea").filter((c) => isTextControl(c) && tagOf(c) !== "SELECT"
      && (attr(c, "type") || "").toLowerCase() !== "password");
    const values = controls.map((c) => norm(c.value)).filter((v) => v.length >= 3);
    const boxes = controls.filter((c) => c.maxLength === 1).map((c) => c.value).join("");
    if (boxes.length >= 3) values.push(norm(boxes));
    return [...new Set(values)];
  }
  // Whether the page shows, outside its fields, a value the run typed: it took the value in
  // ("Joined as ada@example.com", "Verified with 482913").
  function echoes(text, values) {
    const t = norm(text);
    return values.some((v) => t.includes(v));
  }
  // The field this run filled last, while a person can still see it.
  function filledShown() {
    const ref = globalThis.__planlockLastFilled;
    const el = ref && ref.deref ? ref.deref() : null;
    return !!el && el.isConnected && isVisible(el);
  }
  // A change of the document, as a fact keyed for dedup: an element added, text added to one,
  // an attribute or a text changed, children removed.
  function changeOf(r) {
    if (r.type === "attributes") return { kind: "attribute", name: r.attributeName, el: describeEl(r.target) };
    if (r.type === "characterData") return { kind: "text", el: r.target.parentElement ? describeEl(r.target.parentElement) : null };
    const el = [...r.addedNodes].find((n) => n.nodeType === Node.ELEMENT_NODE);
    if (el) return { kind: "added", el: describeEl(el) };
    const text = [...r.addedNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.data.trim());
    if (text) return { kind: "added_text", text: tidy(text.data).slice(0, 40), el: describeEl(r.target) };
    return r.removedNodes.length ? { kind: "removed", el: describeEl(r.target) } : null;
  }
  // Starts watching, just before the click's mouse events, what the element it will land on
  // does: changes in the document (open shadow roots and same-origin frames included), focus
  // moving, the state of the controls around it, a submission. The field the run filled is
  // left first, as the click's mouse-down would: what the page does when a field loses focus
  // (a framework's focus class, a check of the value) is not the click's effect.
  async function watchClick() {
    const ref = globalThis.__planlockClicked;
    const el = ref && ref.deref ? ref.deref() : null;
    const old = globalThis.__planlockWatch;
    if (old) old.observer.disconnect();
    // A key is pressed in the field that gets it.
    const keyed = globalThis.__planlockKeyTarget && globalThis.__planlockKeyTarget.deref();
    if (keyed && keyed.isConnected) keyed.focus();
    const active = deepActive();
    if (el && active && isTextControl(active) && !contains(active, el) && !contains(el, active)) {
      /** @type {HTMLElement} */ (active).blur();
      await frame();
    }
    const w = {
      el, records: 0, changes: [], keys: [], first: null, started: performance.now(), focus: deepActive(),
      states: el ? statefulAround(el).map((c) => [c, stateOf(c)]) : [],
      filled: filledShown(), submits: globalThis.__planlockSubmits || 0,
      values: typedValues(), echoed: false,
    };
    w.observer = new MutationObserver((records) => {
      if (w.first === null) w.first = performance.now();
      w.records += records.length;
      for (const r of records) {
        if (!w.echoed && w.values.length) {
          const added = r.type === "characterData" ? [r.target] : [...r.addedNodes];
          w.echoed = added.some((n) => !(n.nodeType === Node.ELEMENT_NODE && isTextControl(n)) && echoes(n.textContent, w.values));
        }
        if (w.changes.length >= 5) continue;
        const change = changeOf(r);
        const key = change && JSON.stringify(change);
        if (change && !w.keys.includes(key)) {
          w.keys.push(key);
          w.changes.push(change);
        }
      }
    });
    everything();
    for (const root of treeRoots) {
      try {
        w.observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
      } catch (e) { /* a frame that went away */ }
    }
    globalThis.__planlockWatch = w;
  }
  // What the watched click did so far, in the page.
  function clickEffect(w) {
    const e = { changes: w.changes.slice(), changed: w.records, states: [], focus: null, submitted: false, filled_gone: false };
    for (const [c, before] of w.states) {
      const after = stateOf(c);
      for (const k of Object.keys(before)) {
        if (before[k] === after[k]) continue;
        // A value is never given: it may be a secret. Other states as text (`false`, `2`).
        e.states.push(k === "value" ? { state: k, el: describeEl(c) } : { state: k, el: describeEl(c), before: String(before[k]), after: String(after[k]) });
      }
    }
    // Focus moving counts when it lands in a field (clicking one puts the caret there, a
    // label focuses its field) or on something else than what was clicked (an "Edit" link
    // focusing a form); clicking a button or a link that does nothing focuses that alone.
    const active = deepActive();
    const page = !active || active === bodyOf(document) || active === document.documentElement;
    const itself = w.el && (contains(w.el, active) || contains(active, w.el));
    if (!page && active !== w.focus && (!itself || isTextControl(active))) e.focus = describeEl(active);
    e.submitted = (globalThis.__planlockSubmits || 0) > w.submits;
    e.filled_gone = w.filled && !filledShown();
    e.echoed = w.echoed;
    const any = e.changed > 0 || e.states.length > 0 || !!e.focus || e.submitted || e.filled_gone;
    if (any && w.first === null) w.first = performance.now();
    if (any) e.after_ms = ms(w.first - w.started);
    return { any, e };
  }

  // ---- the verdicts ----
  const found = (facts) => ({ state: "found", facts });
  const rejected = (why) => ({ state: "rejected", rejection: why });

