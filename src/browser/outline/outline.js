  // ---- what the outline reads of a control ----
  // The name an author gave a control, counted only from what is painted: the elements
  // aria-labelledby points at (the ones shown), else aria-label; normalised as the
  // accessible name the locator compares is.
  function paintedAriaName(el) {
    const ids = attr(el, "aria-labelledby");
    if (ids) {
      const root = el.getRootNode();
      const named = ids.split(/\s+/).map((id) => (root.getElementById ? root.getElementById(id) : null))
        .filter((r) => r && painted(r)).map(paintedText).join(" ");
      if (norm(named)) return norm(named);
    }
    return norm(attr(el, "aria-label"));
  }
  // A select's options a person can pick: not `hidden`, not `display: none`.
  function shownOptions(select) {
    return [...select.options].filter((o) => !o.hidden && styleOf(o).display !== "none");
  }


  // ---- the outline ----
  // The page's structure for a planner that has not seen it.
  function outline() {
    // The page's structure for a planner that has not seen it: title, headings, each
    // form's fields (label as `fill` matches it, type, name, required, autocomplete,
    // placeholder, options) and buttons, and the texts of other links and buttons by
    // landmark. Only what a person sees: never paragraphs, values, or anything not painted.
    // Bounded for the transfer only: the outline cuts each text to its length once the
    // values a model must never read are masked, so no cut leaves a part of one.
    const cap = (t) => { t = tidy(t); return t.length > 500 ? t.slice(0, 499) + "…" : t; };
    const all = everything().filter((el) => !SKIP.has(tagOf(el)));
    // A checkbox or radio a page hides behind a styled one is shown by its label.
    const choice = (el) => tagOf(el) === "INPUT" && ["checkbox", "radio"].includes((attr(el, "type") || "").toLowerCase());
    const shown = all.filter((el) => painted(choice(el) ? clickable(el) : el));
    const headings = shown.filter((el) => /^H[12]$/.test(tagOf(el)))
      .map((el) => ({ level: +tagOf(el)[1], text: cap(paintedText(el)) })).filter((h) => h.text);
    const forms = [];
    const formEntry = new Map();
    const entryOf = (form) => {
      if (!formEntry.has(form)) {
        const entry = {
          name: form ? cap(idOf(form) || attr(form, "name") || attr(form, "aria-label") || "") : "",
          fields: [], buttons: [],
        };
        formEntry.set(form, entry);
        forms.push(entry);
      }
      return formEntry.get(form);
    };
    const labelOf = (el) => {
      const label = [...(el.labels || [])].filter(painted).map((l) => tidy(paintedText(l)).replace(/[\s:*]+$/, "")).find(Boolean);
      return cap(label || paintedAriaName(el) || attr(el, "placeholder") || "");
    };
    const groups = new Map();
    const outside = [];
    const seen = new Set();
    for (const el of shown) {
      const form = formOf(el);
      const type = (attr(el, "type") || "").toLowerCase();
      const role = roleOf(el);
      if (tagOf(el) === "INPUT" && (type === "radio" || type === "checkbox") || tagOf(el) === "SELECT" || isTextControl(el)) {
        if (tagOf(el) === "INPUT" && type === "hidden") continue;
        // The control inside a custom checkbox (<sl-checkbox>): its host stands for it.
        const host = el.getRootNode().host;
        if (host && hostRole(host)) continue;
        const field = {
          label: labelOf(el),
          kind: tagOf(el) === "SELECT" ? "select" : tagOf(el) === "TEXTAREA" ? "textarea" : el.isContentEditable && tagOf(el) !== "INPUT" ? "text" : (type || "text"),
          name: cap(attr(el, "name") || ""),
          id: attr(el, "name") ? "" : cap(el.id || ""),
          required: !!el.required || attr(el, "aria-required") === "true",
          autocomplete: cap(attr(el, "autocomplete") || ""),
          placeholder: cap(attr(el, "placeholder") || ""),
          options: tagOf(el) === "SELECT" ? shownOptions(el).slice(0, 12).map((o) => cap(o.label)) : [],
        };
        if (type === "radio" && el.name) {
          // A radio group is one field: its options are its radios' labels.
          const key = `${el.name}|${forms.indexOf(entryOf(form))}`;
          if (groups.has(key)) { groups.get(key).options.push(field.label); continue; }
          const legend = el.closest("fieldset") && el.closest("fieldset").querySelector("legend");
          const group = { ...field, label: cap(legend && painted(legend) ? paintedText(legend) : ""), options: [field.label] };
          groups.set(key, group);
          entryOf(form).fields.push(group);
          continue;
        }
        entryOf(form).fields.push(field);
        continue;
      }
      if (["checkbox", "switch", "radio"].includes(role) && tagOf(el) !== "INPUT" && tagOf(el) !== "LABEL") {
        // A custom control (<sl-checkbox>, [role=checkbox]): a field named by its text.
        const field = { label: cap(paintedText(el) || paintedAriaName(el)), kind: role, name: cap(attr(el, "name") || ""), id: attr(el, "name") ? "" : cap(el.id || ""),
          required: el.hasAttribute("required") || attr(el, "aria-required") === "true", autocomplete: "", placeholder: "", options: [] };
        if (field.label && !seen.has(el)) { seen.add(el); entryOf(form).fields.push(field); }
        continue;
      }
      const clickableRole = ["button", "link", "tab", "menuitem"].includes(role) || hostRole(el);
      if (!clickableRole) continue;
      const text = cap(paintedText(el) || paintedAriaName(el) || attr(el, "title") || "");
      if (!text || seen.has(el)) continue;
      seen.add(el);
      if (form && (role === "button" || hostRole(el) === "button")) {
        entryOf(form).buttons.push({ text, submit: isSubmit(el) });
      } else {
        outside.push({ landmark: landmarkOf(el) || "main", role: hostRole(el) || role, text });
      }
    }
    // The page's prose goes back only to be counted for instruction-like text; it never
    // reaches the planner.
    const prose = (bodyOf(document) ? bodyOf(document).innerText : "").slice(0, 100000);
    return found({ title: cap(DOC.title.call(document)), headings, forms: forms.filter((f) => f.fields.length || f.buttons.length), outside, prose });
  }

  // The outline once the document has been parsed (a page still arriving holds only its
  // beginning), waiting for that at most `budget_ms`.
  const started = performance.now();
  for (;;) {
    fresh();
    /** @type {Verdict<Outline>} */
    let verdict;
    try {
      verdict = DOC.readyState.call(document) === "loading" ? { state: "loading" } : outline();
    } catch (e) {
      const err = /** @type {any} */ (e);
      verdict = rejected({ kind: "script", message: String(err && err.message || err) });
    }
    if (verdict.state !== "loading") return plain(verdict);
    const left = request.budget_ms - (performance.now() - started);
    if (left <= 0) return verdict;
    await nextChange(left);
  }
}
