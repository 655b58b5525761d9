      // (A cut inside `attempt()`: its switch on the operation runs on from attempt_act.js; the
      // cases cannot stand apart without turning each into a function of its own.)
      case "text": {
        const q = norm(req.text);
        // What others posted (a comment saying "your email is verified") says nothing of the
        // run: the page's text is read around those regions, never by cutting their words out
        // of the whole (an empty or one-word comment would cut those letters everywhere).
        const text = visibleText(userContentRegions());
        return norm(text).includes(q) ? found({}) : { state: "not_found" };
      }
      case "sent": {
        // After a click: did the browser refuse to send a form (constraint validation)? Each
        // control it found invalid, by its label, with the browser's own message.
        const watch = globalThis.__planlockSubmitting;
        const blocked = watch && watch.submitted === 0 ? watch.invalid.filter((el) => el.isConnected) : [];
        return found({ invalid: [...new Set(blocked)].map((el) => ({ field: fieldName(el), message: el.validationMessage || "" })) });
      }
      case "errors": {
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
          const i = at.get(e);
          for (let box = e.parentElement, n = 0; box && n < 3; box = box.parentElement, n++) {
            const inside = fields.filter((f) => box.contains(f));
            if (inside.length === 1) return inside[0];
            if (inside.length > 1) break;
          }
          const form = formOf(e);
          const next = fields.find((f) => at.get(f) > i && at.get(f) - i <= 8 && formOf(f) === form);
          if (next) return next;
          return [...fields].reverse().find((f) => at.get(f) < i && i - at.get(f) <= 8 && formOf(f) === form) || null;
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
      case "watch": {
        // The form's shape is read before the pointer leaves a field.
        const shape = formShape();
        await watchClick();
        return found({ shape });
      }
      case "effect": {
        // A document without the watch is a new one: the click navigated.
        const w = globalThis.__planlockWatch;
        if (!w) return found({ replaced: true });
        const { any, e } = clickEffect(w);
        return any || req.budget_ms === 0 ? found(e) : { state: "not_found" };
      }
      case "asking": {
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
      case "quiet": {
        // The change watch installed with the locator stamps each change of the document; a
        // document that never changed has been quiet since it started.
        if (typeof globalThis.__planlockSettled !== "function") return found({ quiet_ms: null });
        const at = globalThis.__planlockChangedAt || 0;
        return found({ quiet_ms: Math.max(0, Math.round(performance.now() - at)) });
      }
      case "pending": {
        // Is the field this run filled last still on the page as it was typed, its form not
        // sent since (no submission in this document after the fill)?
        const shown = filledShown();
        const sent = (globalThis.__planlockSubmits || 0) > (globalThis.__planlockFilledAt || 0);
        const taken = shown && echoes(visibleText([]), typedValues());
        return found({ unsent: shown && !sent && !taken });
      }
