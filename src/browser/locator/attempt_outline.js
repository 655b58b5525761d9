      // (A cut inside `attempt()`: its switch runs on from attempt_watch.js and ends here, as
      // does `attempt()`.)
      case "outline": {
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
      case "accessible": {
        // What assistive technology announces for each element at the selector: its role and
        // accessible name, as the ranking reads them.
        const els = selectorAll(req.selector);
        return found({ elements: els.map((el) => ({ element: describeEl(el), role: roleOf(el), name: accName(el) })) });
      }
      case "extract": {
        if (req.selector) {
          const els = selectorAll(req.selector);
          const el = els.find(isVisible);
          if (!el) return els.length ? blocked(els[0], { kind: "hidden" }) : { state: "not_found" };
          return found({ text: (el.innerText || el.textContent || "").trim(), element: describeEl(el) });
        }
        const main = document.querySelector("main, [role=main]") || bodyOf(document);
        if (!main) return { state: "loading" };
        return found({ text: (main.innerText || "").trim(), element: main === bodyOf(document) ? "<body>" : describeEl(main) });
      }
      default:
        return rejected({ kind: "unknown_operation", op: String(req.op) });
    }
  }

