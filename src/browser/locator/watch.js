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
    /** @type {(Element & { contentDocument?: Document | null }) | null} */
    let a = document.activeElement;
    for (;;) {
      if (a && a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      /** @type {Element | null | undefined} */
      let inner = null;
      try { inner = a && a.contentDocument && a.contentDocument.activeElement; } catch (e) { inner = null; }
      if (inner && a && inner !== (a.contentDocument && a.contentDocument.body)) { a = inner; continue; }
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
  /** @returns {Change | null} */
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
    /** @type {ClickWatch} */
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
        const key = change ? JSON.stringify(change) : "";
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
    /** @type {PageEffect & { changes: Change[], changed: number, states: StateChange[] }} */
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

  // A field as a person names it: its label, else its aria-label, placeholder or name.
  function fieldName(el) {
    const label = [...(el.labels || [])].map((l) => tidy(l.innerText).replace(/[\s:*]+$/, "")).find(Boolean);
    return label || tidy(attr(el, "aria-label")) || tidy(attr(el, "placeholder")) || el.name || describeEl(el);
  }

  // ---- the operations that watch ----
  // `sent`: after a click, did the browser refuse to send the form (invalid fields)?
  /** @returns {Verdict<FormCheck>} */
  function sent(/** @type {Asked<SentOp>} */ req) {
    // After a click: did the browser refuse to send a form (constraint validation)? Each
    // control it found invalid, by its label, with the browser's own message.
    const watch = globalThis.__planlockSubmitting;
    const blocked = watch && watch.submitted === 0 ? watch.invalid.filter((el) => el.isConnected) : [];
    return found({ invalid: [...new Set(blocked)].map((el) => ({ field: fieldName(el), message: el.validationMessage || "" })) });
  }
  // `errors`: did the page come back with the form, and what does it say about it?
  /** @returns {Verdict<FormErrors>} */
  function errors(/** @type {Asked<ErrorsOp>} */ req) {
    // Did the page answer the submission with the same form again, with errors? Recognised
    // by shape, against the form as it was just before the click (`before`, kept by the
    // Rust side across documents): the same fields, a value typed still there, and an
    // error the page says. New words beside a field (in its own box, or the nearest
    // field's before or after them, as pages list errors above or below) are one only with
    // evidence: the field marked invalid (`aria-invalid`, or the browser's `:invalid` for
    // what it holds), the words marked as an error (an error word in their element's
    // class, an alert that says no good news), error words in them, or the server
    // answering the submission with a client error (`req.refused`). A notice beside a
    // field that is none of these ("Please check your email!") is no error. Words that show
    // back what was typed are the page taking it in ("Saved nickname ada"), not an error.
    const before = req.before;
    if (!before) return found({ errors: [], form_back: false });
    const names = new Set(before.fields.map((f) => f.name));
    const filled = new Set(req.filled || []);
    const key = (c) => c.name || c.id;
    const controls = formControls(null).filter((c) => names.has(key(c)));
    const back = controls.length > 0 && [...filled].every((n) => controls.some((c) => key(c) === n));
    if (!back) return found({ errors: [], form_back: false });
    const typed = before.fields.filter((f) => f.value);
    const kept = !typed.length || controls.some((c) => {
      const was = typed.find((f) => f.name === key(c));
      return !!was && typeof c.value === "string" && c.value !== "" && hashOf(c.value) === was.value;
    });
    // A field the page or the browser marks invalid (the browser only for what it holds).
    const flagged = (c) => attr(c, "aria-invalid") === "true"
      || (typeof c.value === "string" && c.value !== "" && c.matches(":invalid"));
    const invalid = controls.some(flagged);
    // A form emptied of what was typed is a form answered, unless it marks a field invalid.
    if (!kept && !invalid) return found({ errors: [], form_back: false });
    const values = typedValues();
    const isNew = (l) => !before.text.includes(norm(l)) && !echoes(l, values);
    const all = everything();
    const fields = all.filter((el) => (isTextControl(el) || ["checkbox", "radio"].includes(roleOf(el))) && el.type !== "hidden" && isVisible(el));
    const at = new Map(all.map((el, i) => [el, i]));
    // The field a message is about: the one in its own box, else the next within a few
    // elements in the same form, else the one just before it.
    // Words in a dialog without fields of the form are the page asking (a confirmation
    // the submission opened), not what it says about the form.
    const asking = (e) => {
      for (let n = e; n; n = up(n)) {
        if (tagOf(n) === "DIALOG" || ["dialog", "alertdialog"].includes(attr(n, "role"))) {
          return !controls.some((c) => contains(n, c));
        }
      }
      return false;
    };
    const owner = (e) => {
      const i = /** @type {number} */ (at.get(e));
      for (let box = e.parentElement, n = 0; box && n < 3; box = box.parentElement, n++) {
        const inside = fields.filter((f) => box.contains(f));
        if (inside.length === 1) return inside[0];
        if (inside.length > 1) break;
      }
      const form = formOf(e);
      // (Every field is one of `all`: it has a place.)
      const place = (f) => /** @type {number} */ (at.get(f));
      const next = fields.find((f) => place(f) > i && place(f) - i <= 8 && formOf(f) === form);
      if (next) return next;
      return [...fields].reverse().find((f) => place(f) < i && i - place(f) <= 8 && formOf(f) === form) || null;
    };
    const said = new Map();
    const elsewhere = [];
    // Lines of elements marked as an error message.
    const marked = new Set();
    for (const el of all) {
      if (SKIP.has(tagOf(el)) || isTextControl(el) || isUserContent(el) || asking(el)) continue;
      const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.data).join(" ");
      if (!/\p{L}/u.test(own) || !isVisible(el)) continue;
      const lines = (el.innerText || "").split("\n").map(lineOf).filter(wordy).filter(isNew);
      if (!lines.length) continue;
      if (errorMarked(el)) lines.forEach((l) => marked.add(l));
      const f = owner(el);
      if (f && names.has(key(f))) said.set(f, [...(said.get(f) || []), ...lines]);
      else elsewhere.push(...lines);
    }
    // What the page says about a field, that it marks one invalid without words, or a
    // line tied to no field; each once, with three letters at least and 300 characters at
    // most as `field: said` reads.
    const errors = [];
    const keys = [];
    const letters = (t) => (t || "").match(/\p{L}/gu)?.length || 0;
    const push = (e) => {
      const key = JSON.stringify(e);
      const size = (e.field === undefined ? 0 : e.field.length + 2) + (e.said || "").length;
      if ((e.invalid || letters(e.field) + letters(e.said) >= 3) && size <= 300 && !keys.includes(key)) {
        keys.push(key);
        errors.push(e);
      }
    };
    // A line inside a longer one of the same field is said once.
    const once = (lines) => [...new Set(lines)].filter((l, _, all) => !all.some((o) => o !== l && o.includes(l)));
    const errorSays = (l) => req.refused || marked.has(l) || WRONG_WORDS.test(l);
    for (const c of controls) {
      const beside = (said.get(c) || []).filter((l) => flagged(c) || errorSays(l));
      // What `aria-errormessage` points at is an error message by its page's word.
      const words = once([...beside, ...[byIds(c, "aria-errormessage")].map(lineOf).filter(wordy).filter(isNew)]);
      if (words.length) push({ field: tidy(fieldName(c)), said: tidy(words.join(" ")) });
      else if (flagged(c)) push({ field: tidy(fieldName(c)), invalid: true });
    }
    if (!errors.length) for (const l of once(elsewhere)) if (errorSays(l)) push({ said: tidy(l) });
    return found({ errors: errors.slice(0, 8), form_back: errors.length > 0 });
  }
  // `watch`: just before a click's mouse events, start watching what the element found does.
  /** @returns {Promise<Verdict<Watched>>} */
  async function watch(/** @type {Asked<WatchOp>} */ req) {
    // The form's shape is read before the pointer leaves a field.
    const shape = formShape();
    await watchClick();
    return found({ shape });
  }
  // `effect`: what the watched click did so far.
  /** @returns {Verdict<PageEffect>} */
  function effect(/** @type {Asked<EffectOp>} */ req) {
    // A document without the watch is a new one: the click navigated.
    const w = globalThis.__planlockWatch;
    if (!w) return found({ replaced: true });
    const { any, e } = clickEffect(w);
    return any || req.budget_ms === 0 ? found(e) : { state: "not_found" };
  }
  // `asking`: is a modal dialog open that the element clicked last is not in?
  /** @returns {Verdict<Asking>} */
  function asking(/** @type {Asked<AskingOp>} */ req) {
    // A modal dialog open now that the element clicked last is not in: the page asks
    // something before it goes on (a confirmation). A dialog only marked `aria-modal`
    // counts while it is really on top, as for choosing candidates.
    const w = globalThis.__planlockWatch;
    const clicked = w && w.el;
    if (!clicked) return found({ dialog: null });
    const modals = [
      ...queryAll("dialog").filter((n) => n.matches(":modal")),
      ...queryAll('[aria-modal="true"]').filter((n) => tagOf(n) !== "DIALOG"
        && ["dialog", "alertdialog"].includes(roleOf(n)) && isVisible(n) && reach.onTop(n)),
    ];
    const open = modals.find((m) => !contains(m, clicked));
    if (!open) return found({ dialog: null });
    const said = accName(open) || norm(paintedText(open));
    return found({ dialog: said.length > 80 ? said.slice(0, 79) + "…" : said });
  }
  // `quiet`: how long has the document gone without a change?
  /** @returns {Verdict<Quiet>} */
  function quiet(/** @type {Asked<QuietOp>} */ req) {
    // The change watch installed with the locator stamps each change of the document; a
    // document that never changed has been quiet since it started.
    if (typeof globalThis.__planlockSettled !== "function") return found({ quiet_ms: null });
    const at = globalThis.__planlockChangedAt || 0;
    return found({ quiet_ms: Math.max(0, Math.round(performance.now() - at)) });
  }
  // `pending`: is the field this run filled last still on the page, its form never sent?
  /** @returns {Verdict<PendingForm>} */
  function pending(/** @type {Asked<PendingOp>} */ req) {
    // Is the field this run filled last still on the page as it was typed, its form not
    // sent since (no submission in this document after the fill)?
    const shown = filledShown();
    const sent = (globalThis.__planlockSubmits || 0) > (globalThis.__planlockFilledAt || 0);
    const taken = shown && echoes(visibleText([]), typedValues());
    return found({ unsent: shown && !sent && !taken });
  }
