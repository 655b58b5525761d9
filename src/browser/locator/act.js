  // ---- actions ----
  function setNativeValue(el, value) {
    const proto = tagOf(el) === "TEXTAREA" ? HTMLTextAreaElement.prototype
      : tagOf(el) === "SELECT" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const own = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, "value"));
    const w = view(el);
    // Elements of an iframe have their own prototypes.
    const frameProto = tagOf(el) === "TEXTAREA" ? w.HTMLTextAreaElement.prototype
      : tagOf(el) === "SELECT" ? w.HTMLSelectElement.prototype : w.HTMLInputElement.prototype;
    const setter = /** @type {(v: string) => void} */ ((Object.getOwnPropertyDescriptor(frameProto, "value") || own).set);
    setter.call(el, value);
  }
  function fire(el, value) {
    const w = view(el);
    el.dispatchEvent(new w.InputEvent("input", { bubbles: true, composed: true, inputType: "insertText", data: value }));
    el.dispatchEvent(new w.Event("change", { bubbles: true }));
  }
  /** @returns {{ kind: "no_option", value: string, options: string[] } | null} */
  function fillOne(el, value) {
    el.focus();
    if (tagOf(el) === "SELECT") {
      const v = norm(value);
      const opt = [...el.options].find((o) => norm(o.value) === v || norm(o.label) === v)
        || [...el.options].find((o) => norm(o.label).includes(v));
      if (!opt) return { kind: "no_option", value, options: [...el.options].map((o) => o.label).slice(0, 8) };
      setNativeValue(el, opt.value);
      fire(el, opt.value);
      return null;
    }
    if (el.isContentEditable && tagOf(el) !== "INPUT" && tagOf(el) !== "TEXTAREA") {
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

  // The code labels of a text, read as the mail's reader reads them (inbox/extract/otp_labels.rs):
  // `^` wants no letter before a label, `$` no letter or digit after it; a code word inside a
  // longer label of another kind (`barcode`, `backup code`) does not count.
  const CODE_LABELS = new Map();
  for (const [kind, specs] of [["code", vocabulary.code_words], ["inside", vocabulary.inside_other_words],
    ["other", vocabulary.other_codes], ["other", vocabulary.other_code_fields]]) {
    for (const spec of specs) {
      const chars = [...spec.replace(/^\^/, "").replace(/\$$/, "")];
      const label = { chars, kind, before: spec.startsWith("^"), after: spec.length > 1 && spec.endsWith("$") };
      if (!CODE_LABELS.has(chars[0])) CODE_LABELS.set(chars[0], []);
      CODE_LABELS.get(chars[0]).push(label);
    }
  }
  function codeLabels(text) {
    const cs = [...text];
    const found = [];
    cs.forEach((c, i) => {
      for (const l of CODE_LABELS.get(c) || []) {
        const end = i + l.chars.length;
        if (end > cs.length || l.chars.some((x, k) => cs[i + k] !== x)) continue;
        if (l.before && i > 0 && /\p{Alphabetic}/u.test(cs[i - 1])) continue;
        if (l.after && end < cs.length && /[\p{Alphabetic}\p{N}]/u.test(cs[end])) continue;
        found.push({ start: i, end, kind: l.kind });
      }
    });
    const blockers = found.filter((l) => l.kind !== "code");
    return found.filter((l) => l.kind !== "code" || !blockers.some((b) => b.start <= l.start && l.end <= b.end && b.end - b.start > l.end - l.start));
  }
  // The field a page marks as the one-time code, when the plan's selector finds none: the
  // autocomplete hint browsers use, then a control named like a code, then a row of
  // single-character boxes. Returns the control(s) and which sign found them.
  function codeField() {
    const controls = everything().filter((el) => isTextControl(el) && tagOf(el) !== "SELECT" && isVisible(el) && isEditable(el) && !isUserContent(el));
    const marked = controls.find((el) => (attr(el, "autocomplete") || "").toLowerCase().includes("one-time-code"));
    if (marked) {
      const row = boxesAround(marked, controls);
      return { els: row || [marked], by: "autocomplete" };
    }
    const named = controls.find((el) => {
      const labels = [...(el.labels || [])].map((l) => l.innerText).join(" ");
      const says = [labels, givenName(el), attr(el, "name"), el.id, attr(el, "placeholder")]
        .map((t) => norm(t).replace(/[_-]/g, " ")).join(" | ");
      const found = codeLabels(says);
      return found.some((l) => l.kind === "code") && !found.some((l) => l.kind === "other");
    });
    if (named) return { els: boxesAround(named, controls) || [named], by: "name" };
    const single = controls.filter((el) => el.maxLength === 1 || attr(el, "maxlength") === "1");
    for (const el of single) {
      const row = boxesAround(el, single);
      if (row) return { els: row, by: "boxes" };
    }
    return null;
  }
  // The row of single-character boxes `el` belongs to (at least four sharing a parent or
  // grandparent), or null.
  function boxesAround(el, controls) {
    if (!(el.maxLength === 1 || attr(el, "maxlength") === "1")) return null;
    for (const box of [up(el), el.parentElement && up(up(el))]) {
      if (!box) continue;
      const row = controls.filter((c) => (c.maxLength === 1 || attr(c, "maxlength") === "1") && contains(box, c));
      if (row.length >= 4) return row;
    }
    return null;
  }

  // Where a value typed into `el` may be sent: its form's action and method, and the names
  // of the form's fields (to recognise the form when a page comes back with it).
  function formFacts(el) {
    const form = formOf(el);
    if (!form) return { field: el.name || el.id || null };
    return { field: el.name || el.id || null, action: formAction(form), method: (attr(form, "method") || "get").toUpperCase() };
  }

  // ---- the operations that act ----
  // `click`: find the element to click (by visible text, else selector), rank the matches,
  // wait until the winner can be clicked, and say where; the mouse events are the Rust side's.
  /** @returns {Promise<Verdict<Located | Explained>>} */
  async function click(/** @type {Asked<ClickOp>} */ req) {
    // Layout the page owes from its last change is not the locator's time: settle it first.
    void document.documentElement.getBoundingClientRect();
    const t0 = performance.now();
    /** @type {string | null} */
    let strategy = null;
    /** @type {any[]} */
    let cands = [], strays = [];
    const wanted = wantedRole(req.describe, req.text);
    if (req.text) {
      ({ found: cands, strays } = byText(req.text, wanted));
      if (cands.length) strategy = "text";
    }
    if (!cands.length && req.selector) {
      cands = selectorAll(req.selector).map((el, order) => ({ el: clickable(el), match: MATCH.exact, visible: 1, exact: true, interactive: true, order }));
      if (cands.length) strategy = "selector";
    }
    const form = lastFilledForm();
    /** @type {Candidate[] | null} */
    let passedOver = null;
    const shown = cands.filter((c) => isVisible(c.el));
    const controls = shown.filter((c) => c.interactive || hostRole(c.el));
    // Implicit submission. The step submits the form just filled, but no control says its
    // text: only a heading or other text does (clicking it does nothing), or only links
    // away from the form (a menu's "Register" beside the form's "Submit": following one
    // would lose what was typed). The form is submitted by its default button, as pressing
    // Enter in its field would: the first submit button in tree order.
    const onlyText = !shown.some((c) => c.interactive || hostRole(c.el) || c.el.matches(INTERACTIVE))
      && saysSubmit(req.describe, req.text);
    const onlyAway = controls.length > 0 && submitsForm(req.describe, req.text)
      && controls.every((c) => leavesForm(c.el, form)) && !cands.some((c) => formOf(c.el) === form);
    if (!req.explain) globalThis.__planlockKeyTarget = null;
    if (form && (onlyText || onlyAway)) {
      const def = defaultButton(form);
      const submits = submitsOf(form);
      const field = lastFilled();
      if (def && isEnabled(def)) {
        const texts = [...new Set([...shown, ...strays].map((c) => c.el))];
        passedOver = [...texts.slice(0, 3).map(candidate), ...submits.filter((b) => b !== def).slice(0, 3).map(candidate)];
        if (isVisible(def) || !field || tagOf(field) !== "INPUT") {
          const press = isVisible(def) ? def : submits[0];
          if (press) {
            cands = [{ el: press, match: 0, visible: 1, exact: false, interactive: true, order: 0 }];
            // The form's one submit control, or its default button among several.
            strategy = submits.length === 1 && press === def ? "form_submit" : "implicit_submit";
          }
        } else {
          // A default button the page hides (to let Enter submit): Enter is pressed in
          // the field, and the browser clicks it, as for a person.
          if (req.explain) {
            return found({ strategy: "implicit_submit", key: "Enter", candidates: [{ ...candidate(def), match: null, visible: false, ranked: false }],
              rules: [], decided_by: "only", chosen: 0 });
          }
          globalThis.__planlockSubmitting = { invalid: [], submitted: 0, form };
          globalThis.__planlockClicked = new WeakRef(field);
          globalThis.__planlockKeyTarget = new WeakRef(field);
          const p = where(field);
          return found({
            strategy: "implicit_submit", key: "Enter", x: p.x, y: p.y, element: describeEl(def),
            candidates: 1, decided_by: "only", ambiguous: false, chosen: chosenFacts(def), passed_over: passedOver,
          });
        }
      }
    }
    if (!cands.length && strays.length && DOC.readyState.call(document) === "complete") {
      // Only what a person does not operate says the text (a heading, a paragraph), and the
      // step asks for a control: clicking the heading would do nothing the plan needs, and
      // the page has finished arriving. Failing now says so.
      return rejected({ kind: "not_a_control", wanted, matched: strays.slice(0, 3).map((c) => candidate(c.el)) });
    }
    if (!cands.length) return { state: "not_found" };
    const place = wantedPlace(req.describe, req.text);
    const pick = choose(cands, CLICK_RULES, { form, place, wanted }, true);
    if (pick.explained) return found({ strategy, ...pick.explained });
    if (pick.refuse) return rejected({ kind: "ambiguous", candidates: pick.refuse });
    if (pick.pending) return pick.pending;
    const locateMs = performance.now() - t0;
    const el = pick.chosen.el;
    const why = await unready(el, "click", true);
    if (why) return why;
    if (strategy === "text") {
      strategy = { 5: "text", 4: "text-substring", 3: "text-substring", 2: "words", 1: "equivalent" }[pick.chosen.match] || "text";
    }
    // What the click does to a form is judged after it (was it sent?): start counting now.
    globalThis.__planlockSubmitting = { invalid: [], submitted: 0, form: formOf(el) };
    // What else it does is watched from just before it (the `watch` operation).
    globalThis.__planlockClicked = new WeakRef(el);
    const p = where(el);
    /** @type {Located} */
    const facts = { strategy, x: p.x, y: p.y, element: describeEl(el), ...pick.why, locate_ms: ms(locateMs) };
    if (passedOver) facts.passed_over = passedOver;
    return found(facts);
  }
  // `fill`: find the control (by label, else selector, else the kind the describe names) and
  // type the value into it.
  /** @returns {Promise<Verdict<Located | Explained>>} */
  async function fill(/** @type {Asked<FillOp>} */ req) {
    // Layout the page owes from its last change is not the locator's time: settle it first.
    void document.documentElement.getBoundingClientRect();
    const t0 = performance.now();
    /** @type {string | null} */
    let strategy = null;
    /** @type {any[]} */
    let cands = [];
    if (req.label) {
      // Only controls a value is typed into: a label shared with a radio, a checkbox or a
      // button never picks those.
      cands = labelled(req.label).filter((c) => isTextControl(c.el));
      if (cands.length) strategy = "label";
    }
    if (!cands.length && req.selector) {
      cands = selectorAll(req.selector).map((el, order) => ({ el: editableInside(el), match: MATCH.exact, exact: true, source: 0, order, ugc: false }));
      if (cands.length) strategy = "selector";
    }
    if (!cands.length) {
      cands = byType(req.describe);
      if (cands.length) strategy = "type";
    }
    if (!cands.length) return { state: "not_found" };
    const form = lastFilledForm();
    const pick = choose(cands, FILL_RULES, { form, place: null, wanted: null }, false);
    if (pick.explained) return found({ strategy, ...pick.explained });
    if (pick.refuse) return rejected({ kind: "ambiguous", candidates: pick.refuse });
    if (pick.pending) return pick.pending;
    const locateMs = performance.now() - t0;
    const chosen = pick.chosen;
    const el = chosen.el;
    // A secret goes only into the site's own form, never into a control others posted.
    if (req.sensitive && (chosen.ugc || isUserContent(el))) return rejected({ kind: "user_content", element: describeEl(el) });
    const why = await unready(el, "editable", false);
    if (why) return why;
    if (strategy === "label") strategy = ["label", "label", "aria-label", "aria-labelledby", "placeholder"][chosen.source];
    if (strategy === "label" && chosen.match === MATCH.words) strategy = "label-words";
    const err = fillOne(el, req.value);
    if (err) return rejected({ element: describeEl(el), ...err });
    rememberFilled(el);
    const got = el.value;
    if (got !== undefined && tagOf(el) !== "SELECT" && got !== req.value) {
      return rejected({ kind: "rewritten", element: describeEl(el), holds: got });
    }
    return found({ strategy, element: describeEl(el), ...pick.why, ...formFacts(el), locate_ms: ms(locateMs) });
  }
  // `code`: type a one-time code into the input(s) at the selector, or the field the page marks.
  /** @returns {Verdict<Located>} */
  function code(/** @type {Asked<CodeOp>} */ req) {
    // A code goes only into the site's own controls, never into one others posted.
    const matched = selectorAll(req.selector).map(editableInside).filter((el) => !isUserContent(el));
    let live = matched.filter((el) => isVisible(el) && isEditable(el));
    let strategy = "selector";
    /** @type {string | null} */
    let fallback = null;
    if (!live.length) {
      const found = codeField();
      if (!found) {
        if (!matched.length) return { state: "not_found" };
        return blocked(matched[0], blocker(matched[0], "editable") || { kind: "not_editable" });
      }
      live = found.els;
      strategy = "fallback";
      fallback = found.by;
    }
    const compact = req.code.replace(/[\s-]/g, "");
    const single = live.length > 1 && live.every((el) => el.maxLength === 1 || attr(el, "maxlength") === "1" || (el.size && el.size <= 2));
    const extra = fallback ? { fallback, element: describeEl(live[0]) } : {};
    if (single) {
      if (live.length < compact.length) {
        return rejected({ kind: "too_few_boxes", characters: compact.length, boxes: live.length });
      }
      compact.split("").forEach((ch, i) => fillOne(live[i], ch));
      rememberFilled(live[0]);
      return found({ strategy: fallback ? strategy : "split", boxes: live.length, form: "compact", ...extra, ...formFacts(live[0]) });
    }
    const el = live[0];
    const max = el.maxLength > 0 ? el.maxLength : Infinity;
    const numeric = (attr(el, "type") || "") === "number" || attr(el, "inputmode") === "numeric";
    const useCompact = compact !== req.code && (req.code.length > max || numeric);
    const value = useCompact ? compact : req.code;
    const err = fillOne(el, value);
    if (err) return rejected({ element: describeEl(el), ...err });
    rememberFilled(el);
    return found({ strategy, form: useCompact ? "compact" : "as shown", element: describeEl(el), ...extra, ...formFacts(el) });
  }
