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
  /** @returns {Blocker | null} */
  function blocker(el, need) {
    if (!el.isConnected) return { kind: "removed" };
    if (!isVisible(el)) return { kind: "hidden" };
    if (!isEnabled(el)) return { kind: "disabled" };
    if (need === "editable" && !isEditable(el)) return { kind: "not_editable" };
    return null;
  }
  // A step waits on `el`, held back by `why`.
  /** @type {(el: Element, why: Blocker) => NotActionable} */
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
        return { refuse: [ranked[0], ranked[1]].map((c) => ({ ...candidate(c.el), destination: destination(c.el) })) };
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
