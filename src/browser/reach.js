// What a person can click: whether the point planlock would press on an element receives the
// click, as Playwright's actionability check "receives events" judges it. The point is hit-tested
// in the element's own document and shadow root, and again through every same-origin frame it
// sits in; an element that is `inert`, or outside an open modal dialog, is out of reach whatever
// is on top. Given the locator's readers of the DOM (`dom`); the locator uses it to choose among
// candidates (a covered one is no candidate while an uncovered one matches) and to wait on the
// one it chose.
(dom) => {
  const { up, contains, tagOf, attr, describeEl, givenName, cut, queryAll, view } = dom;

  // Where a click on `el` lands: the centre of its box, in its own document's viewport (the
  // point the locator gives the Rust side, frame offsets added, to press).
  function pointOf(el) {
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }
  // Whether the point is in the viewport of `el`'s document: elsewhere nothing can be hit.
  function inView(el, p) {
    const w = view(el);
    return p.x >= 0 && p.y >= 0 && p.x < w.innerWidth && p.y < w.innerHeight;
  }

  // What receives a click at `p` aimed at `el`: `ok`, or the element hit instead (`by`, null
  // when nothing is there). In a frame, the frame element must receive it too, at that point
  // of the page around it.
  function hitAt(el, p) {
    const root = el.getRootNode();
    const doc = el.ownerDocument;
    const at = (root.elementFromPoint ? root : doc).elementFromPoint(p.x, p.y);
    if (!at) return { ok: false, by: null };
    if (!receives(el, at)) return { ok: false, by: at };
    let frame = null;
    try { frame = doc.defaultView && doc.defaultView.frameElement; } catch (e) { frame = null; }
    if (!frame) return { ok: true };
    const r = frame.getBoundingClientRect();
    const st = view(frame).getComputedStyle(frame);
    const outer = {
      x: r.left + frame.clientLeft + parseFloat(st.paddingLeft || "0") + p.x,
      y: r.top + frame.clientTop + parseFloat(st.paddingTop || "0") + p.y,
    };
    return inView(frame, outer) ? hitAt(frame, outer) : { ok: true };
  }
  // Whether a hit on `at` is a hit on `el`: the element, something inside it (its shadow
  // content too), the control of the label aimed at, or, seen from inside a shadow root, the
  // host that holds `el` (text slotted into `el` belongs to the host).
  function receives(el, at) {
    if (at === el || el.contains(at)) return true;
    if (tagOf(el) === "LABEL" && el.control === at) return true;
    for (let n = at; n; n = n.parentNode || n.host) if (n === el) return true;
    return !!at.shadowRoot && contains(at, el);
  }
  // What covers `el` where the element `at` was hit: the outermost element around it that does
  // not hold `el` (the banner or dialog as a whole, not a paragraph inside it).
  function outermost(at, el) {
    let cover = at;
    for (let n = up(at); n && !contains(n, el) && tagOf(n) !== "BODY" && tagOf(n) !== "HTML"; n = up(n)) cover = n;
    return cover;
  }
  // A cover as a failure names it: the element, with the role and the name its author gave it.
  function named(cover) {
    const name = givenName(cover);
    return { element: describeEl(cover), role: attr(cover, "role") || null, name: name ? cut(name, 40) : null };
  }
  // Whether `el` is on top at its own centre (something inside it counts).
  function onTop(el) {
    const p = pointOf(el);
    const at = el.ownerDocument.elementFromPoint(p.x, p.y);
    return !!at && (at === el || contains(el, at));
  }

  // The modal dialogs open now. One in the top layer (`showModal`) takes the whole page: what
  // is outside it is out of reach wherever it is. One a page only marks (`aria-modal`, a
  // dialog role: markup anyone who may post on the page can write) counts while it is really
  // on top, and then only says why an element outside it is covered.
  function openModals() {
    const top = queryAll("dialog").filter((n) => n.matches(":modal"));
    const marked = queryAll('[aria-modal="true"], [role="dialog"], [role="alertdialog"]')
      .filter((n) => tagOf(n) !== "DIALOG" && shown(n) && onTop(n));
    return { top, marked };
  }
  // Laid out and not hidden by style, however faint: a dialog fading in is already a dialog.
  function shown(n) {
    if (n.checkVisibility && !n.checkVisibility({ checkVisibilityCSS: true })) return false;
    const r = n.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  // Whether `el` lies over the whole viewport of its document, as a modal's backdrop does.
  function spans(el) {
    const r = el.getBoundingClientRect();
    const w = view(el);
    return r.left <= 0 && r.top <= 0 && r.right >= w.innerWidth && r.bottom >= w.innerHeight;
  }

  // Why a person could not click `el` now, or null: `inert` (it or what holds it), outside an
  // open modal dialog (`behind_modal`, with the dialog or what covers it), or `covered` at the
  // point a click would land. An element whose point is outside the viewport cannot be
  // hit-tested: `seen` remembers what the test said while it was in view (`strict`: an
  // element that should be in view, and is not, is covered by nothing known).
  function reachOf(el, modals, seen, strict) {
    for (let n = el; n; n = up(n)) if (n.inert) return { kind: "inert" };
    if (modals.top.length && !modals.top.some((m) => contains(m, el))) {
      return { kind: "behind_modal", by: named(modals.top[modals.top.length - 1]) };
    }
    const p = pointOf(el);
    if (!inView(el, p)) return strict ? { kind: "covered", by: null } : seen.get(el) || null;
    const hit = hitAt(el, p);
    if (hit.ok) {
      seen.delete(el);
      return null;
    }
    // Behind a modal: outside a dialog that is on top, or under something that lies over
    // the whole page (a backdrop, whoever drew it); else covered by what is there.
    const cover = hit.by ? outermost(hit.by, el) : null;
    const outside = modals.marked.some((m) => !contains(m, el)) || (!!cover && spans(cover));
    const why = { kind: outside ? "behind_modal" : "covered", by: cover ? named(cover) : null };
    seen.set(el, why);
    return why;
  }
  // What a step waiting on an element out of reach says holds it back (a blocker the Rust
  // side words): behind a modal dialog is covered by it.
  function blockerOf(why) {
    return why.kind === "inert" ? { kind: "inert" } : { kind: "covered", by: why.by || null };
  }

  return { onTop, openModals, reachOf, blockerOf };
}
