  // ---- the operation, retried until actionable or out of budget ----
  async function attempt() {
    tree = null;
    treeRoots = null;
    names = new Map();
    roles = new Map();
    // A document still being parsed holds only its beginning: choosing, typing or reading there
    // would act on part of the page (two of six code boxes, half an article, one of two
    // buttons). Text someone waits for may be seen before the rest has arrived.
    if (!["text", "effect", "pending", "quiet"].includes(req.op) && DOC.readyState.call(document) === "loading") {
      return { state: "loading" };
    }
    switch (req.op) {
      case "click": {
        // Layout the page owes from its last change is not the locator's time: settle it first.
        void document.documentElement.getBoundingClientRect();
        const t0 = performance.now();
        let strategy = null, cands = [], strays = [];
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
        if (pick.refuse) return rejected({ kind: "ambiguous", candidates: pick.pending.candidates });
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
        /** @type {Record<string, any>} */
        const facts = { strategy, x: p.x, y: p.y, element: describeEl(el), ...pick.why, locate_ms: ms(locateMs) };
        if (passedOver) facts.passed_over = passedOver;
        return found(facts);
      }
      case "fill": {
        // Layout the page owes from its last change is not the locator's time: settle it first.
        void document.documentElement.getBoundingClientRect();
        const t0 = performance.now();
        let strategy = null, cands = [];
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
        if (pick.refuse) return rejected({ kind: "ambiguous", candidates: pick.pending.candidates });
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
      case "code": {
        // A code goes only into the site's own controls, never into one others posted.
        const matched = selectorAll(req.selector).map(editableInside).filter((el) => !isUserContent(el));
        let live = matched.filter((el) => isVisible(el) && isEditable(el));
        let strategy = "selector", fallback = null;
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
