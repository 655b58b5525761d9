  // ---- actionability ----
  // What a person can click (reach.js), over the readers above.
  const reach = reachOver({ up, contains, tagOf, attr, describeEl, givenName, cut, queryAll, view });
  function inViewport(el) {
    const r = el.getBoundingClientRect();
    const w = view(el);
    return r.bottom > 0 && r.right > 0 && r.top < w.innerHeight && r.left < w.innerWidth;
  }
  const frame = () => new Promise(/** @param {(v?: unknown) => void} res */ (res) => requestAnimationFrame(() => res()));

  // Checks one candidate; returns null when actionable, else what holds it back.
  function blocker(el, need) {
    if (!el.isConnected) return { kind: "removed" };
    if (!isVisible(el)) return { kind: "hidden" };
    if (!isEnabled(el)) return { kind: "disabled" };
    if (need === "editable" && !isEditable(el)) return { kind: "not_editable" };
    return null;
  }
  // A step waits on `el`, held back by `why`.
  const blocked = (el, why) => ({ state: "not_actionable", element: describeEl(el), blocker: why });

  // Whether the page has rendered since its last DOM change, tracked by the watcher installed
  // with the locator in planlock's world (absent when the locator runs in the main world).
  function calm(el) {
    const settled = globalThis.__planlockSettled;
    if (typeof settled !== "function") return false;
    const doc = el.ownerDocument;
    return doc === document && doc.readyState === "complete" && settled()
      && doc.getAnimations().length === 0;
  }

  const MOVING = /^(opacity|transform|translate|scale|rotate|top|left|right|bottom|inset|visibility|display|width|height|margin|all$)/;
  function movesOrFades(a) {
    if (a.transitionProperty) return MOVING.test(a.transitionProperty);
    try {
      return a.effect.getKeyframes().some((k) => Object.keys(k).some((p) => MOVING.test(p)));
    } catch (e) {
      return true;
    }
  }

  // Null when `el` is actionable, else why not. A person acts on the element they mean and
  // waits for it; so does this: it never falls through to a lesser match that happens to be free.
  async function unready(el, need, pointer) {
    const b = blocker(el, need);
    if (b) return blocked(el, b);
    if (!pointer) return null;
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
      if (!same(boxes[0], boxes[1]) || !same(boxes[1], boxes[2])) return blocked(el, { kind: "moving" });
    }
    // A dialog fading in or out is not there to be used yet (or any more): wait for finite
    // animations that move or fade the element or anything around it (a colour pulse does not).
    const doc = el.ownerDocument;
    if (!calm(el) && doc.getAnimations().some((a) => a.playState === "running" && a.effect && a.effect.target
      && contains(a.effect.target, el) && Number.isFinite(a.effect.getComputedTiming().endTime) && movesOrFades(a))) {
      return blocked(el, { kind: "animating" });
    }
    // Receives the click: not inert, not outside an open modal dialog, on top at its point.
    const out = reach.reachOf(el, reach.openModals(), seenOut, true);
    return out ? blocked(el, reach.blockerOf(out)) : null;
  }

  // Ranks the candidates a person could use and names the winner. Hidden ones are not on the
  // page as a person sees it (a collapsed mobile menu, a template): they neither win nor tie.
  // Nor do those out of a person's reach (reach.js): inert, outside an open modal dialog, or
  // covered where a click would land. A covered match is no candidate while an uncovered one
  // matches, but an uncovered match that others posted never pushes the site's own covered
  // control out. When every match is out of reach, the step waits on the best of them, as for
  // one not yet visible. A fill (not `pointer`) sets its value without pointing: only a modal
  // dialog, a backdrop over the page or `inert` keeps a person from a field, not a bar that
  // lies over part of it.
  function choose(cands, rules, step, pointer) {
    const visible = cands.filter((c) => isVisible(c.el));
    if (!req.explain && !visible.length) {
      const first = cands[0];
      return { pending: blocked(first.el, blocker(first.el, "visible") || { kind: "hidden" }) };
    }
    // One match to click: whether it can be is what waiting on it checks (`unready`).
    if (!req.explain && pointer && visible.length === 1) {
      const why = { candidates: 1, decided_by: "only", ambiguous: false, runners_up: [], chosen: chosenFacts(visible[0].el) };
      if (cands.length > 1) why.hidden = cands.length - 1;
      return { chosen: visible[0], why };
    }
    const modals = reach.openModals();
    for (const c of visible) {
      const out = reach.reachOf(c.el, modals, seenOut, false);
      c.out = out && (pointer || out.kind !== "covered") ? out : null;
    }
    const free = visible.filter((c) => !c.out);
    const own = (c) => !isUserContent(c.el);
    const ranked = free.some(own) || !visible.some((c) => c.out && own(c)) ? free : [];
    if (req.explain) {
      const shown = ranked.length ? ranked : visible;
      const verdict = shown.length ? rank(shown, rules, step) : null;
      return { explained: explained(cands, shown, verdict, shown[0]) };
    }
    if (!ranked.length) {
      const out = visible.filter((c) => c.out);
      rank(out, rules, step);
      return { pending: blocked(out[0].el, reach.blockerOf(out[0].out)) };
    }
    const verdict = rank(ranked, rules, step);
    const chosen = ranked[0];
    // A true tie decided by document order alone is refused when the two lead to different
    // places: order on a page is something content others post can win.
    if (verdict.ambiguous) {
      const [a, b] = [destination(ranked[0].el), destination(ranked[1].el)];
      if (a !== b && (a !== null || b !== null)) {
        return { pending: { state: "ambiguous", candidates: [ranked[0], ranked[1]].map((c) => ({ ...candidate(c.el), destination: destination(c.el) })) }, refuse: true };
      }
    }
    const left = visible.filter((c) => !ranked.includes(c));
    if (left.length > 1) rank(left, rules, step);
    const why = explain(ranked, chosen, verdict, cands.length - visible.length, left);
    const behind = left.filter((c) => c.out.kind !== "covered").length;
    if (behind) why.behind_modal = behind;
    if (left.length > behind) why.covered = left.length - behind;
    return { chosen, why };
  }

  // ---- actions ----
  function setNativeValue(el, value) {
    const proto = tagOf(el) === "TEXTAREA" ? HTMLTextAreaElement.prototype
      : tagOf(el) === "SELECT" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const own = Object.getOwnPropertyDescriptor(proto, "value");
    const w = view(el);
    // Elements of an iframe have their own prototypes.
    const frameProto = tagOf(el) === "TEXTAREA" ? w.HTMLTextAreaElement.prototype
      : tagOf(el) === "SELECT" ? w.HTMLSelectElement.prototype : w.HTMLInputElement.prototype;
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

  // Text as it reads, whitespace collapsed, case kept.
  const tidy = (s) => (s || "").replace(/\s+/g, " ").trim();
  // A field as a person names it: its label, else its aria-label, placeholder or name.
  function fieldName(el) {
    const label = [...(el.labels || [])].map((l) => tidy(l.innerText).replace(/[\s:*]+$/, "")).find(Boolean);
    return label || tidy(attr(el, "aria-label")) || tidy(attr(el, "placeholder")) || el.name || describeEl(el);
  }
  // The rendered text of `el` (as innerText reads it) without the text of `regions` inside it.
  // Only the elements that hold such a region are taken apart, child by child; the rest is
  // read whole.
  function shownText(el, regions) {
    if (regions.includes(el)) return "";
    if (!regions.some((r) => contains(el, r))) return el.innerText || "";
    // What is rendered in place of the children: a shadow root's content, a slot's assigned
    // nodes.
    const kids = el.shadowRoot ? el.shadowRoot.childNodes
      : tagOf(el) === "SLOT" && el.assignedNodes({ flatten: true }).length ? el.assignedNodes({ flatten: true })
        : el.childNodes;
    let out = "";
    for (const child of kids) {
      if (child.nodeType === Node.TEXT_NODE) out += child.data;
      if (child.nodeType !== Node.ELEMENT_NODE || SKIP.has(tagOf(child))) continue;
      // innerText of an element not rendered is its raw text: such an element shows nothing.
      const display = styleOf(child).display;
      if (display === "none" || (display !== "contents" && !isVisible(child))) continue;
      const t = shownText(child, regions);
      out += display.startsWith("inline") ? t : ` ${t} `;
    }
    return out;
  }
  // The outermost regions of content others posted.
  function userContentRegions() {
    const all = everything().filter((el) => isUserContent(el));
    return all.filter((el) => !all.some((other) => other !== el && other.contains(el)));
  }

