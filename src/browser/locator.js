// planlock's one locator engine. Installed in planlock's isolated world of every document
// (evaluated in the main world only until that world exists): finds the target of a step (text,
// label, selector; open shadow roots and same-origin iframes included), ranks the matches as a
// person reading the page would, auto-waits until the winner is actionable, performs in-page
// actions, and returns a verdict tagged by `state` (`found` with its facts, `not_found`,
// `not_actionable` with the blocker, `loading`, `rejected` with why): codes and facts, never
// sentences, which the Rust side words (browser/locate.rs, browser/facts.rs, runner/failure.rs).
// Waiting happens here, inside the page, so a step costs one CDP round trip however long it
// waits; the Rust side re-evaluates after navigations. `accname` is dom-accessibility-api's
// computation of roles and accessible names (vendor/accname.js, bundled by scripts/accname/build);
// `vocabulary` the word lists it reads pages with (vocabulary.js, generated from
// src/vocabulary/pages.rs); `reachOver` what a person can click (reach.js), given the readers of
// the DOM below.
(accname, vocabulary, reachOver) => {
// What a hit test said of an element while it was in view, for the attempts after it scrolled
// out (kept for the document's life, as the locator is).
const seenOut = new WeakMap();
return async (request) => {
  // `explain`: the click or fill it wraps, found and ranked as that step would be, rule by rule,
  // and acted on in no way (for `scripts/bench --explain`).
  const req = request.op === "explain" ? { ...request.of, budget_ms: request.budget_ms, explain: true } : request;
  const started = performance.now();
  const budget = req.budget_ms;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim().toLowerCase();
  const squash = (s) => (s || "").replace(/\s+/g, "").toLowerCase();
  // A text shortened for a description says so with "…": the masking of secrets on the Rust
  // side recognises what a cut left of one by it.
  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + "\u2026" : s);
  // Finding and ranking time of the attempt that succeeded (waiting excluded), to the µs.
  const ms = (t) => Math.round(t * 1000) / 1000;
  // A regular expression's alternatives that are the words of a list, each taken literally.
  const anyOf = (words) => words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");

  // ---- the rules that rank candidates, in order ----
  // A click's or a fill's matches are sorted by the rules of its table: each rule only decides
  // between the candidates the rules before it left tied, then document order does; the rule
  // that set the winner apart from the next one is the step's `decided_by`. A row is a rule's
  // name and the score it gives a candidate `c` (higher first) for the step `s`: `s.form`, the
  // form of the field this run filled last; `s.place`, the landmarks its describe names;
  // `s.wanted`, the role its describe names.

  // Main content first, then the site's own navigation, then sidebars, then the footer: a
  // person looks for "Sign up" in the menu before the fine print.
  const LANDMARK_RANK = { main: 3, nav: 2, header: 2, aside: 1, footer: 0 };
  const CLICK_RULES = [
    // The site's own content over content others can post on it (comments, rel=ugc links).
    ["ugc", (c) => (isUserContent(c.el) ? 0 : 1)],
    // The submit button of the form filled last, then anything else in that form.
    ["form", (c, s) => (s.form && formOf(c.el) === s.form ? (isSubmit(c.el) ? 2 : 1) : 0)],
    // The part of the page the describe names ("in the menu", "in the footer").
    ["place", (c, s) => (s.place && s.place.includes(landmarkOf(c.el) || "main") ? 1 : 0)],
    // A real match (the text contains the query) over a near miss (words, equivalent phrase).
    ["near", (c) => (c.match >= MATCH.substring ? 1 : 0)],
    // A match on visible text or aria-label over one on a title or an image's alt.
    ["visible", (c) => c.visible],
    // A control outside footers and sidebars, where sites show what others post.
    ["margin", (c) => (inMargin(c.el) || !(c.interactive || hostRole(c.el)) ? 0 : 1)],
    // The whole text equal to the query over containing it, words over equivalent phrases.
    ["exact", (c) => (c.match === MATCH.start ? MATCH.substring : c.match)],
    // A text that begins with the query's words over one where they come later.
    ["start", (c) => (c.match === MATCH.start ? 1 : 0)],
    // The role the describe names ("the Sign Up button").
    ["role", (c, s) => (s.wanted && roleMatches(c.el, s.wanted) ? 1 : 0)],
    // Main content, then nav and header, then aside, then footer.
    ["landmark", (c) => LANDMARK_RANK[landmarkOf(c.el) || "main"]],
    // Buttons, links, labels and other controls over plain elements.
    ["interactive", (c) => (c.interactive || hostRole(c.el) ? 1 : 0)],
  ];
  const FILL_RULES = [
    // A control outside content others posted, labelled by no such content either.
    ["ugc", (c) => (c.ugc || isUserContent(c.el) ? 0 : 1)],
    // A control of the form filled last.
    ["form", (c, s) => (s.form && formOf(c.el) === s.form ? 1 : 0)],
    // A control outside footers and sidebars (a newsletter box ranks below the page's own).
    ["margin", (c) => (inMargin(c.el) ? 0 : 1)],
    // A label equal to the query over one containing it, over the same words.
    ["exact", (c) => (c.match === MATCH.start ? MATCH.substring : c.match)],
    // A label that begins with the query's words over one where they come later.
    ["start", (c) => (c.match === MATCH.start ? 1 : 0)],
    // A control in main content over one in a landmark (nav, header, aside, footer).
    ["landmark", (c) => (landmarkOf(c.el) ? 0 : 1)],
    // By association: <label for>, a wrapping label, aria-label, aria-labelledby, placeholder.
    ["label", (c) => -c.source],
  ];

  // ---- reading the DOM as it is, not as a page named it ----
  // A form's controls are also its properties (`<button name="action">` makes `form.action`
  // that button, as on django-allauth's set-password page), and so are some named elements
  // of a document. The locator reads through the prototypes' own getters, which no name on
  // the page can shadow.
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const methodOf = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).value;
  const GET_ATTRIBUTE = methodOf(Element.prototype, "getAttribute");
  const TAG_NAME = getter(Element.prototype, "tagName");
  const ID = getter(Element.prototype, "id");
  const FORM_ACTION = getter(HTMLFormElement.prototype, "action");
  const DOC = {
    title: getter(Document.prototype, "title"),
    body: getter(Document.prototype, "body"),
    readyState: getter(Document.prototype, "readyState"),
  };
  const attr = (el, name) => GET_ATTRIBUTE.call(el, name);
  const tagOf = (el) => TAG_NAME.call(el);
  const idOf = (el) => ID.call(el);
  const formAction = (form) => FORM_ACTION.call(form);
  const bodyOf = (doc) => DOC.body.call(doc);

  // ---- the tree: document, open shadow roots, same-origin iframes, in document order ----
  function collect(root, out, frames, roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    let node = root.nodeType === Node.ELEMENT_NODE ? root : walker.nextNode();
    while (node) {
      out.push(node);
      if (node.shadowRoot) {
        roots.push(node.shadowRoot);
        collect(node.shadowRoot, out, frames, roots);
      }
      if (tagOf(node) === "IFRAME" || tagOf(node) === "FRAME") {
        let doc = null;
        try { doc = node.contentDocument; } catch (e) { doc = null; }
        if (doc && doc.documentElement) {
          frames.set(doc, node);
          roots.push(doc);
          collect(doc.documentElement, out, frames, roots);
        }
      }
      node = walker.nextNode();
    }
  }
  // One walk per attempt: every finder of the attempt reads the same tree, and the roots
  // (document, open shadow roots, same-origin frames) it went through.
  let tree = null, treeRoots = null;
  function everything() {
    if (tree) return tree;
    const out = [];
    const frames = new Map();
    const roots = [document];
    if (document.documentElement) collect(document.documentElement, out, frames, roots);
    tree = out;
    treeRoots = roots;
    return out;
  }
  function queryAll(sel) {
    everything();
    return treeRoots.flatMap((r) => [...r.querySelectorAll(sel)]);
  }

  // ---- element state ----
  const view = (el) => el.ownerDocument.defaultView;
  function isVisible(el) {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) {
      return false;
    }
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return true;
    // display: contents and similar: visible if a child is.
    const st = view(el).getComputedStyle(el);
    if (st.display === "contents") {
      for (const c of el.children) if (isVisible(c)) return true;
    }
    return false;
  }
  function isEnabled(el) {
    if (el.disabled === true) return false;
    if (el.closest && el.closest("fieldset[disabled]") && !el.closest("legend")) return false;
    const ad = el.closest && el.closest("[aria-disabled]");
    if (ad && attr(ad, "aria-disabled") === "true") return false;
    return true;
  }
  const TEXT_INPUTS = new Set(["", "text", "email", "password", "search", "tel", "url", "number",
    "date", "datetime-local", "month", "time", "week"]);
  function isTextControl(el) {
    const tag = tagOf(el);
    if (tag === "INPUT") return TEXT_INPUTS.has((attr(el, "type") || "").toLowerCase());
    return tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable === true;
  }
  function isEditable(el) {
    if (!isEnabled(el)) return false;
    const tag = tagOf(el);
    if (tag === "INPUT") return TEXT_INPUTS.has((attr(el, "type") || "").toLowerCase()) && !el.readOnly;
    if (tag === "TEXTAREA") return !el.readOnly;
    if (tag === "SELECT") return true;
    return el.isContentEditable === true;
  }
  function frameOffset(el) {
    let x = 0, y = 0;
    let win = view(el);
    while (win && win.frameElement) {
      const fe = win.frameElement;
      const r = fe.getBoundingClientRect();
      const st = win.parent.getComputedStyle(fe);
      x += r.left + fe.clientLeft + parseFloat(st.paddingLeft || "0");
      y += r.top + fe.clientTop + parseFloat(st.paddingTop || "0");
      win = win.parent;
    }
    return { x, y };
  }
  function describeEl(el) {
    let s = tagOf(el).toLowerCase();
    if (idOf(el)) s += "#" + idOf(el);
    else if (el.classList && el.classList.length) s += "." + [...el.classList].slice(0, 2).join(".");
    const t = cut(norm(textOf(el)), 40);
    if (t) return `<${s}> "${t}"`;
    // A part of a web component says little by itself; its host says what it is.
    const root = el.getRootNode();
    return root && root.host ? `<${s}> in ${describeEl(root.host)}` : `<${s}>`;
  }
  function textOf(el) {
    if (tagOf(el) === "INPUT") {
      const type = (attr(el, "type") || "").toLowerCase();
      if (["submit", "button", "reset"].includes(type)) return el.value || (type === "submit" ? "Submit" : "");
      if (type === "image") return el.alt || "";
      return "";
    }
    return el.innerText !== undefined ? el.innerText : el.textContent;
  }
  const INTERACTIVE = "button, a[href], a, [role=button], [role=link], [role=menuitem], [role=tab], " +
    "[role=checkbox], [role=option], input[type=submit], input[type=button], input[type=reset], " +
    "input[type=image], input[type=checkbox], input[type=radio], label, summary, [onclick]";
  function interactiveAncestor(el) {
    let node = el;
    while (node) {
      if (node.nodeType === Node.ELEMENT_NODE && node.matches(INTERACTIVE)) return node;
      node = node.parentElement || (node.parentNode && node.parentNode.host) || null;
    }
    return null;
  }
  function selectorAll(sel) {
    return [...new Set(queryAll(sel))];
  }

  // ---- names, roles, landmarks: what a person reads off an element ----
  // The next element up, across shadow roots and out of same-origin iframes.
  function up(node) {
    if (node.parentElement) return node.parentElement;
    const p = node.parentNode;
    if (p && p.host) return p.host;
    if (p && p.nodeType === Node.DOCUMENT_NODE) {
      try { return p.defaultView && p.defaultView.frameElement; } catch (e) { return null; }
    }
    return null;
  }
  function contains(outer, inner) {
    for (let n = inner; n; n = up(n)) if (n === outer) return true;
    return false;
  }
  function byIds(el, name) {
    const ids = attr(el, name);
    if (!ids) return "";
    const root = el.getRootNode();
    return ids.split(/\s+/).map((id) => {
      const r = root.getElementById ? root.getElementById(id) : null;
      return r ? r.innerText || r.textContent : "";
    }).join(" ");
  }
  // Roles and names as assistive technology computes them: dom-accessibility-api (`accname`,
  // bundled in vendor/accname.js), which implements accname and HTML-AAM's implicit roles. Computed
  // once per element and attempt: names read styles, and a page is ranked many times.
  let names = new Map(), roles = new Map();
  const styleOf = (el, pseudo) => view(el).getComputedStyle(el, pseudo);
  // The element's accessible name (aria-labelledby, aria-label, native label, content, title,
  // alt; hidden content left out), normalised.
  function accName(el) {
    if (!names.has(el)) {
      let name = "";
      try { name = accname.computeAccessibleName(el, { getComputedStyle: styleOf }); } catch (e) { name = ""; }
      names.set(el, norm(name));
    }
    return names.get(el);
  }
  // The accessible name an author gave an element (not its content): aria-labelledby,
  // aria-label, then title.
  function givenName(el) {
    return ariaName(el) || norm(attr(el, "title"));
  }
  // The name a screen reader announces in place of the content: the accessible name, when
  // aria-labelledby or aria-label gives it.
  function ariaName(el) {
    return attr(el, "aria-labelledby") !== null || attr(el, "aria-label") !== null ? accName(el) : "";
  }
  // Custom elements that stand for a control (e.g. <sl-button>, <md-checkbox>) keep the
  // control's name in their tag; their real control sits in a shadow root.
  const HOST_ROLE = /-(button|checkbox|switch|radio|tab|option|menu-item|link)$/;
  function hostRole(el) {
    const m = el.localName.includes("-") && el.localName.match(HOST_ROLE);
    return m ? (m[1] === "menu-item" ? "menuitem" : m[1]) : null;
  }
  // The element's role: its explicit `role`, else the implicit one of its element and
  // attributes (HTML-AAM). What the package leaves without a role: a paragraph, a text-like
  // input without one in ARIA (password, date…) is a textbox, a custom control's host is the
  // control its tag names, a label stands for its checkbox or radio, anything else is generic.
  function roleOf(el) {
    if (!roles.has(el)) roles.set(el, computeRole(el));
    return roles.get(el);
  }
  function computeRole(el) {
    const tag = tagOf(el);
    if (tag === "LABEL" && !attr(el, "role")) {
      const c = el.control;
      return c && ["checkbox", "radio"].includes(roleOf(c)) ? roleOf(c) : "label";
    }
    let role = null;
    try { role = accname.getRole(el); } catch (e) { role = null; }
    if (role) return role.toLowerCase();
    if (tag === "P") return "paragraph";
    if (tag === "INPUT" && TEXT_INPUTS.has((attr(el, "type") || "").toLowerCase())) return "textbox";
    return hostRole(el) || "generic";
  }
  // Roles a person operates. A step that asks for one of them ("the Sign In button") never gets
  // an element of another role (a heading, a paragraph, plain text) while a control could do.
  const CONTROL_ROLES = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "textbox", "searchbox", "spinbutton", "combobox",
    "listbox", "slider", "treeitem"]);
  // Whether `el` is something a person operates: a control's role, a label of a control, or
  // a page's own sign that it acts on a click (an onclick handler, a place in the tab order,
  // or, for an element of no role, the pointer cursor pages give their div-buttons).
  function isControl(el) {
    if (CONTROL_ROLES.has(roleOf(el)) || hostRole(el)) return true;
    if (tagOf(el) === "LABEL" && el.control) return true;
    if (el.hasAttribute("onclick") || (attr(el, "tabindex") !== null && el.tabIndex >= 0)) return true;
    return roleOf(el) === "generic" && styleOf(el).cursor === "pointer";
  }
  const ROLE_WORDS = vocabulary.role_words;
  const ROLE_PHRASES = vocabulary.role_phrases.map(([pattern, word]) => [new RegExp(pattern, "g"), word]);
  const PLACE_WORDS = new Set(vocabulary.place_words);
  // A describe with its two-word roles written as one (`radio button` is `radio`).
  const joinRoles = (d) => ROLE_PHRASES.reduce((text, [pattern, word]) => text.replace(pattern, word), d);
  // The words of a step's describe with the query's text cut out (the "Menu link" button is a
  // button) and two-word roles joined; none when there is no describe.
  function describeWords(describe, query) {
    let d = norm(describe);
    if (!d) return [];
    const q = norm(query);
    if (q && q.length > 1) d = d.split(q).join(" ");
    return joinRoles(d).split(/[^a-z]+/);
  }
  // The role a step's `describe` names ("the Sign Up button", "Pricing link"), or null. The
  // role word before any "in/on/under ..." phrase wins: "the button in the menu" is a button.
  function wantedRole(describe, query) {
    let role = null;
    for (const w of describeWords(describe, query)) {
      if (ROLE_WORDS[w]) role = ROLE_WORDS[w];
      else if (role && PLACE_WORDS.has(w)) break;
    }
    return role;
  }
  // The landmarks a step's describe places its element in ("the Sign up link in the menu",
  // "… in the footer"), or null when it names none.
  const PLACES = vocabulary.places;
  function wantedPlace(describe, query) {
    for (const w of describeWords(describe, query)) if (PLACES[w]) return PLACES[w];
    return null;
  }
  function roleMatches(el, wanted) {
    const r = roleOf(el);
    if (r === wanted) return true;
    if (wanted === "menuitem") return r === "menuitemcheckbox" || r === "menuitemradio";
    if (wanted === "checkbox") return r === "switch" || r === "menuitemcheckbox";
    if (wanted === "textbox") return r === "searchbox" || r === "spinbutton" || r === "combobox";
    return false;
  }
  // The page landmark an element sits in when that is not main content: "nav", "header",
  // "footer" or "aside" (elements or their ARIA roles). A header or footer inside an article,
  // section or main belongs to that content, as browsers map them; a dialog is main content.
  const LANDMARK_ROLES = { navigation: "nav", banner: "header", contentinfo: "footer", complementary: "aside" };
  function landmarkOf(el) {
    let scoped = null;
    for (let n = el; n; n = up(n)) {
      const role = (attr(n, "role") || "").trim().toLowerCase();
      if (LANDMARK_ROLES[role]) return LANDMARK_ROLES[role];
      if (role === "main" || role === "dialog" || role === "alertdialog" || tagOf(n) === "MAIN" || tagOf(n) === "DIALOG") return null;
      if (tagOf(n) === "NAV") return "nav";
      if (tagOf(n) === "ASIDE") return "aside";
      if ((tagOf(n) === "HEADER" || tagOf(n) === "FOOTER") && scoped === null) scoped = tagOf(n).toLowerCase();
      if (["ARTICLE", "SECTION"].includes(tagOf(n)) || ["article", "region"].includes(role)) scoped = false;
    }
    return scoped || null;
  }
  // A footer or a sidebar: where a site shows what others post (a guestbook, a signature, a
  // "latest comments" widget) and its fine print. What is there never outranks main content,
  // the menu or the header for how exactly its words match.
  function inMargin(el) {
    const l = landmarkOf(el);
    return l === "footer" || l === "aside";
  }
  function formOf(el) {
    if (tagOf(el) !== "FORM" && el.form) return el.form;
    for (let n = el; n; n = up(n)) if (tagOf(n) === "FORM") return n;
    return null;
  }
  function isSubmit(el) {
    if (tagOf(el) === "BUTTON") return (attr(el, "type") || "submit").toLowerCase() === "submit";
    if (tagOf(el) === "INPUT") return ["submit", "image"].includes((attr(el, "type") || "").toLowerCase());
    // A web component's button (e.g. <sl-button type="submit">) submits its form.
    return hostRole(el) === "button" && (attr(el, "type") || "").toLowerCase() === "submit";
  }
  // The field this run filled last in this document. The locator lives in a per-document
  // isolated world, so a global here is exactly "in this document".
  function lastFilled() {
    const ref = globalThis.__planlockLastFilled;
    const el = ref && ref.deref ? ref.deref() : null;
    return el && el.isConnected ? el : null;
  }
  function lastFilledForm() {
    const el = lastFilled();
    return el ? formOf(el) : null;
  }
  function rememberFilled(el) {
    globalThis.__planlockLastFilled = new WeakRef(el);
    // Submissions so far in this document: one after this fill sent what it typed.
    globalThis.__planlockFilledAt = globalThis.__planlockSubmits || 0;
  }

  // The text a person sees: the document's, its same-origin frames' and its open shadow
  // roots', without what `regions` hold.
  function visibleText(regions) {
    const docs = [document];
    let text = "";
    for (const el of everything()) {
      if (el.shadowRoot) for (const c of el.shadowRoot.children) text += " " + shownText(c, regions);
      if (tagOf(el) === "HTML" && el.ownerDocument !== document && bodyOf(el.ownerDocument)) docs.push(el.ownerDocument);
    }
    for (const d of docs) if (bodyOf(d)) text = shownText(bodyOf(d), regions) + " " + text;
    return text;
  }

  // ---- ranking ----
  // Sorts candidates by `rules` (each a name and a score, higher first; a rule only decides
  // between candidates the ones before it left tied), then document order, and says which
  // rule set the winner apart and what came next.
  function rank(cands, rules, step) {
    for (const c of cands) c.scores = rules.map(([, score]) => score(c, step));
    cands.sort((a, b) => {
      for (let i = 0; i < rules.length; i++) if (a.scores[i] !== b.scores[i]) return b.scores[i] - a.scores[i];
      return a.order - b.order;
    });
    let decidedBy = "only";
    let ambiguous = false;
    if (cands.length > 1) {
      const [a, b] = cands;
      const i = rules.findIndex((_, k) => a.scores[k] !== b.scores[k]);
      decidedBy = i < 0 ? "order" : rules[i][0];
      ambiguous = i < 0;
    }
    // Explaining: the candidates each rule kept among those the rules before it kept.
    let survivors = null;
    if (req.explain) {
      let left = cands;
      survivors = rules.map(([name], i) => {
        const best = Math.max(...left.map((c) => c.scores[i]));
        left = left.filter((c) => c.scores[i] === best);
        return [name, left];
      });
    }
    return { decidedBy, ambiguous, survivors };
  }
  function formLabel(form) {
    if (!form) return null;
    if (idOf(form)) return "form#" + idOf(form);
    const name = attr(form, "name") || attr(form, "aria-label") || attr(form, "action");
    return name ? `form[${name}]` : "form";
  }
  // One candidate as the step's detail lists it.
  function candidate(el) {
    return {
      element: describeEl(el),
      tag: tagOf(el).toLowerCase(),
      text: cut(norm(textOf(el)) || givenName(el), 40),
      role: roleOf(el),
      landmark: landmarkOf(el) || "main",
      form: formLabel(formOf(el)),
    };
  }
  // A runner-up as the step's detail lists it; one out of reach says why: covered (behind a
  // modal dialog too), with what covers it, or inert.
  function runnerUp(c) {
    if (!c.out) return candidate(c.el);
    if (c.out.kind === "inert") return { ...candidate(c.el), inert: true };
    return { ...candidate(c.el), covered: true, covered_by: c.out.by ? c.out.by.element : null };
  }
  // The chosen element, with what a failed wait after it needs to explain itself: does it
  // submit a form, and is that the form this run last filled?
  function chosenFacts(el) {
    const form = formOf(el);
    const filled = lastFilledForm();
    return { ...candidate(el), submits: !!form && isSubmit(el), in_filled_form: !!form && form === filled };
  }
  // What `explain` answers: every candidate in document order (how its text matched, whether
  // it was visible and reachable), each rule with the indexes of the candidates it kept, the
  // deciding rule and the chosen candidate's index.
  const MATCH_NAMES = ["none", "equivalent", "words", "substring", "start", "exact"];
  function explained(cands, ranked, verdict, chosen) {
    const index = new Map(cands.map((c, i) => [c, i]));
    return {
      candidates: cands.map((c) => ({ ...runnerUp(c), match: MATCH_NAMES[c.match] || null, visible: isVisible(c.el), ranked: ranked.includes(c) })),
      rules: ((verdict && verdict.survivors) || []).map(([rule, kept]) => ({ rule, kept: kept.map((c) => index.get(c)) })),
      decided_by: verdict ? verdict.decidedBy : null,
      chosen: chosen ? index.get(chosen) : null,
    };
  }
  // `left`: matches out of a person's reach, listed after the ranked ones, each saying so.
  function explain(cands, chosen, verdict, hidden, left) {
    const out = {
      candidates: cands.length,
      decided_by: verdict.decidedBy,
      ambiguous: verdict.ambiguous,
      runners_up: [...cands.filter((c) => c !== chosen), ...left].slice(0, 3).map(runnerUp),
      chosen: chosenFacts(chosen.el),
    };
    if (hidden) out.hidden = hidden;
    return out;
  }

  // ---- finding ----
  const SKIP = new Set(["SCRIPT", "STYLE", "HEAD", "TITLE", "TEMPLATE", "NOSCRIPT"]);

  // How a text matches the query, best first: the whole of it, a part of it, then the near
  // misses a person would accept: every word of the query in any order, hyphens and
  // punctuation aside ("E-mail" is "Email"), or an equivalent action phrase.
  // `start`: the text begins with the query's words ("Email address" for "Email"), a better
  // match than one where they come later ("Teammate email").
  const MATCH = { exact: 5, start: 4, substring: 3, words: 2, equivalent: 1 };
  const wordsOf = (s) => (s || "").toLowerCase().replace(/[\u00ad\u2010-\u2015-]/g, "").split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const joined = (s) => wordsOf(s).join("");
  // Phrases that name one action, whichever a site chose (the same table for every page).
  const EQUIVALENT = vocabulary.equivalent.map((group) => group.map(wordsOf));
  const hasRun = (ws, run) => {
    outer: for (let i = 0; i + run.length <= ws.length; i++) {
      for (let j = 0; j < run.length; j++) if (ws[i + j] !== run[j]) continue outer;
      return true;
    }
    return false;
  };
  // The query as near misses see it: its words, their joined form, and the equivalent
  // phrases when the query is one of the table's.
  function nearQuery(query) {
    const ws = wordsOf(query);
    const group = EQUIVALENT.find((g) => g.some((p) => p.join(" ") === ws.join(" "))) || [];
    return { ws, joined: ws.join(""), equivalents: group.filter((p) => p.join(" ") !== ws.join(" ")) };
  }
  function grade(text, q, near) {
    if (!text) return 0;
    if (text === q || bare(text) === bare(q)) return MATCH.exact;
    if (text.startsWith(q) && !/[\p{L}\p{N}]/u.test(text.charAt(q.length))) return MATCH.start;
    if (text.includes(q)) return MATCH.substring;
    if (!near) return 0;
    const ws = wordsOf(text);
    if (near.ws.length && (near.ws.every((w) => ws.includes(w)) || (near.joined.length > 3 && ws.join("").includes(near.joined)))) return MATCH.words;
    if (near.equivalents.some((p) => hasRun(ws, p))) return MATCH.equivalent;
    return 0;
  }
  // A cheap test on raw text before the costly one on rendered text.
  function mayMatch(raw, qs, near) {
    const t = squash(raw);
    if (t.includes(qs)) return true;
    if (!near) return false;
    const j = joined(raw);
    return near.ws.every((w) => j.includes(w)) || near.equivalents.some((p) => j.includes(p.join("")));
  }

  // Content people other than the site can post, by the evidence a page gives: links marked
  // user-generated (`rel="ugc"`), anything inside a comment (ARIA's comment role, schema.org
  // Comment microdata, a comments or user-content region), and links marked `nofollow` set in
  // running text of the main content, as wikis and blogs mark the links their writers and
  // commenters put there. `nofollow` alone marks nothing: sites put it on their own log-in,
  // log-out and edit links, in a menu, a header, a sidebar, or a button standing alone.
  const UGC_WORDS = new RegExp(`(^|\\s)(${anyOf(vocabulary.user_content_marks)})(\\s|$)`, "i");
  function isUserContent(el) {
    for (let n = el; n; n = up(n)) {
      if (tagOf(n) === "A" && /(^|\s)ugc(\s|$)/i.test(attr(n, "rel") || "")) return true;
      if (tagOf(n) === "A" && /(^|\s)nofollow(\s|$)/i.test(attr(n, "rel") || "") && !landmarkOf(n) && inRunningText(n)) return true;
      if ((attr(n, "role") || "").toLowerCase() === "comment") return true;
      if (/schema\.org\/(Comment|UserComments)/i.test(attr(n, "itemtype") || "")) return true;
      if (/(^|\s)comment(\s|$)/i.test(attr(n, "itemprop") || "")) return true;
      if (tagOf(n) !== "FORM" && (UGC_WORDS.test(idOf(n) || "") || UGC_WORDS.test(attr(n, "class") || ""))) return true;
    }
    return false;
  }

  // Whether a link sits in running text: its block holds words beside it (text, not only other
  // elements), as a sentence does; a menu item, a button or a link alone in its box does not.
  function inRunningText(a) {
    for (let parent = a.parentElement; parent; parent = parent.parentElement) {
      for (const t of parent.childNodes) if (t.nodeType === Node.TEXT_NODE && /\p{L}/u.test(t.data)) return true;
      if (!styleOf(parent).display.startsWith("inline")) return false;
    }
    return false;
  }

  // Candidates for `query`: each with how its best name matches (`match`), whether that name
  // is one a person sees (visible text, aria-label) or only a tooltip or image text (`seen`).
  // Near misses are looked for in the form filled last, or anywhere when nothing else matches.
  // `wanted`: the role the step's describe names, if any. Then an element a person does not
  // operate (a heading, a paragraph, plain text) is no candidate; those are returned apart as
  // `strays`, so a step that finds nothing else can say what it passed over.
  function byText(query, wanted) {
    const q = norm(query);
    const qs = squash(query);
    const form = lastFilledForm();
    const at = new Map(everything().map((el, i) => [el, i]));
    const strays = [];
    const targets = (hits) => {
      // Innermost matches only: drop an element when a descendant matched too.
      const els = new Set(hits.map((h) => h.el));
      const innermost = hits.filter((h) => {
        for (const other of els) if (other !== h.el && h.el.contains(other)) return false;
        return true;
      });
      const out = [];
      const seen = new Set();
      for (const h of innermost) {
        const el = h.el;
        const ia = interactiveAncestor(el);
        const target = clickable(ia || el);
        if (seen.has(target)) continue;
        seen.add(target);
        // The target's own names count too ("Sign up" inside a button named "Sign up").
        let { match, visible } = h;
        for (const [name, vis] of [[norm(textOf(target)), 1], [ariaName(target), 1], [norm(attr(target, "title")), 0]]) {
          const g = grade(name, q, null);
          if (g > match || (g === match && vis > visible)) { match = g; visible = vis; }
        }
        const c = { el: target, match, visible, exact: match === MATCH.exact, interactive: !!ia, order: at.get(target) ?? h.order };
        if (wanted && !ia && !isControl(target)) strays.push(c);
        else out.push(c);
      }
      return out;
    };
    const found = targets(collectText(everything(), q, qs, null));
    // Near misses only where the text itself found nothing: on the page, or in the form
    // just filled (the button of that form is what a person presses next).
    if (!found.length || (form && !found.some((c) => formOf(c.el) === form))) {
      const near = nearQuery(query);
      const scope = found.length ? everything().filter((el) => formOf(el) === form) : everything();
      const known = new Set(found.map((c) => c.el));
      for (const c of targets(collectText(scope, q, qs, near))) if (!known.has(c.el)) found.push(c);
    }
    found.sort((a, b) => a.order - b.order);
    return { found, strays: strays.filter((c) => isVisible(c.el)) };
  }
  function collectText(all, q, qs, near) {
    const hits = [];
    const add = (el, match, visible, order) => { if (match) hits.push({ el, match, visible, order }); };
    all.forEach((el, order) => {
      if (SKIP.has(tagOf(el))) return;
      if (tagOf(el) === "INPUT") {
        if (!["button", "checkbox", "radio"].includes(roleOf(el))) return;
        const t = norm(textOf(el));
        add(el, t ? grade(t, q, near) : grade(ariaName(el), q, near), 1, order);
        return;
      }
      if (tagOf(el) === "IMG") {
        add(el, grade(norm(el.alt), q, near), 0, order);
        return;
      }
      if (el.matches(INTERACTIVE) || hostRole(el)) {
        const named = grade(ariaName(el), q, near);
        if (named) return add(el, named, 1, order);
        const title = grade(norm(attr(el, "title")), q, near);
        if (title && !mayMatch(el.textContent, qs, near)) return add(el, title, 0, order);
      }
      if (!mayMatch(el.textContent, qs, near)) return;
      add(el, grade(norm(textOf(el)), q, near), 1, order);
    });
    return hits;
  }

  // Where a click leads, when the page says so: a link's address, a submit button's form
  // action and method. Null when only the page's scripts know.
  function destination(el) {
    const link = el.closest && el.closest("a[href]");
    if (link) return "GET " + link.href.split("#")[0];
    const form = formOf(el);
    if (form && isSubmit(el)) {
      const action = attr(el, "formaction") !== null ? el.formAction : formAction(form);
      const method = (attr(el, "formmethod") || attr(form, "method") || "get").toUpperCase();
      return `${method} ${action}`;
    }
    return null;
  }

  // Whether a step's words say it submits what was just filled ("the Sign up button",
  // "submit the form"), for clicking a form's one submit control when the text matches nothing.
  const SUBMIT_WORDS = new RegExp(`\\b(${anyOf(vocabulary.submit_words)})\\b`);
  function saysSubmit(describe, text) {
    const d = norm(describe), t = norm(text);
    return SUBMIT_WORDS.test(t) || SUBMIT_WORDS.test(d) || /\bsubmit\b/.test(d);
  }
  // Whether a step says it presses a form's submit control: its describe says it submits, or
  // asks for a button while its text is a submit word ("the Register button").
  function submitsForm(describe, text) {
    const d = norm(describe);
    return /\bsubmit/.test(d) || (wantedRole(describe, text) === "button" && saysSubmit("", text));
  }
  // A link that takes the page elsewhere, outside `form`: following it leaves the form unsent.
  function leavesForm(el, form) {
    const link = el.closest && el.closest("a[href]");
    return !!link && formOf(el) !== form && !attr(link, "href").startsWith("#");
  }
  // The visible submit controls of a form (`form=` attributes included).
  // A form's default button: its first submit button in tree order, shown or not (pages hide
  // one to make Enter submit), as HTML's implicit submission finds it.
  function defaultButton(form) {
    return queryAll("button, input[type=submit], input[type=image], [type=submit]")
      .find((el) => formOf(el) === form && isSubmit(el) && !isUserContent(el)) || null;
  }
  function submitsOf(form) {
    return queryAll("button, input[type=submit], input[type=image], [type=submit]")
      .filter((el) => formOf(el) === form && isSubmit(el) && isVisible(el) && !isUserContent(el));
  }

  // Labels often end in a colon or a required-field star ("Password:", "Email *"): a label
  // that says exactly the query apart from those is an exact match.
  const bare = (s) => s.replace(/[\s:*]+$/, "");
  // The controls labelled `query`, each with how its label matches (`match`: exact, part, or
  // the same words with hyphens and punctuation aside), which association found it
  // (`source`), and whether that label or the control is content others posted (`ugc`).
  function labelled(query) {
    const q = norm(query);
    const near = { ws: wordsOf(query), joined: joined(query), equivalents: [] };
    const found = [];
    const all = everything();
    const add = (control, text, source, order, by) => {
      const match = control ? grade(text, q, near) : 0;
      if (match) found.push({ el: control, match, exact: match === MATCH.exact, source, order, by });
    };
    all.forEach((el, order) => {
      if (tagOf(el) === "LABEL") {
        const t = norm(el.innerText);
        const control = el.control || el.querySelector("input, textarea, select, [contenteditable]");
        if (t) add(control, t, control && el.htmlFor ? 0 : 1, order, el);
      }
      if (!["LABEL", "BUTTON", "A"].includes(tagOf(el))) add(el, norm(attr(el, "aria-label")), 2, order, el);
      if (attr(el, "aria-labelledby")) add(el, accName(el), 3, order, el);
      add(el, norm(attr(el, "placeholder")), 4, order, el);
    });
    const best = new Map();
    for (const f of found) {
      f.el = editableInside(f.el);
      f.ugc = isUserContent(f.el) || isUserContent(f.by);
      const prev = best.get(f.el);
      if (!prev || f.match > prev.match || (f.match === prev.match && f.source < prev.source)) best.set(f.el, f);
    }
    return [...best.values()];
  }

  // When no label matches and the step names an email or password field: the one control of
  // that kind in the form filled last (or on the page, before any fill).
  const EMAIL_WORDS = new RegExp(`\\b(${anyOf(vocabulary.email_field_words)})\\b`);
  const PASSWORD_WORDS = new RegExp(`\\b(${anyOf(vocabulary.password_field_words)})\\b`);
  // The same words in a control's name or id (`user_email`, `emailAddress`).
  const EMAIL_NAMES = new RegExp(`(^|[^a-z])(${anyOf(vocabulary.email_field_words)})([^a-z]|$)`, "i");
  function byType(describe) {
    const d = norm(describe);
    const kind = EMAIL_WORDS.test(d) ? "email" : PASSWORD_WORDS.test(d) ? "password" : null;
    if (!kind) return [];
    const form = lastFilledForm();
    const fits = (el) => {
      if (tagOf(el) !== "INPUT" || !isVisible(el) || !isEditable(el) || isUserContent(el)) return false;
      const type = (attr(el, "type") || "").toLowerCase();
      if (kind === "password") return type === "password";
      const auto = (attr(el, "autocomplete") || "").toLowerCase();
      return type === "email" || auto.split(/\s+/).includes("email") || EMAIL_NAMES.test(`${el.name} ${el.id}`);
    };
    const controls = everything().filter((el) => fits(el) && (!form || formOf(el) === form));
    return controls.length === 1 ? [{ el: controls[0], match: 1, exact: false, source: 5, order: 0, ugc: false }] : [];
  }

  // What an action aimed at `el` should reach, as a person would operate it: the editable
  // control inside a custom element's open shadow root (<sl-input>), and for a native
  // checkbox or radio that the page hides behind a styled one, its label or visible wrapper.
  function editableInside(el) {
    if (isTextControl(el) || !el.shadowRoot) return el;
    for (const n of el.shadowRoot.querySelectorAll("*")) {
      const inner = n.shadowRoot ? editableInside(n) : n;
      if (isTextControl(inner)) return inner;
    }
    return el;
  }
  function clickable(el) {
    // A custom element's host can be far wider than what it draws (a block-level <sl-checkbox>
    // whose centre is blank space): aim at the control its shadow root shows.
    if (el.shadowRoot) {
      for (const n of el.shadowRoot.querySelectorAll(INTERACTIVE)) if (isVisible(n)) return clickable(n);
    }
    if (tagOf(el) !== "INPUT" || !["checkbox", "radio"].includes(roleOf(el)) || isVisible(el)) return el;
    for (const l of el.labels || []) if (isVisible(l)) return l;
    let n = up(el);
    for (let i = 0; n && i < 3; i++, n = up(n)) if (isVisible(n)) return n;
    return el;
  }

  // ---- actionability ----
  // What a person can click (reach.js), over the readers above.
  const reach = reachOver({ up, contains, tagOf, attr, describeEl, givenName, cut, queryAll, view });
  function inViewport(el) {
    const r = el.getBoundingClientRect();
    const w = view(el);
    return r.bottom > 0 && r.right > 0 && r.top < w.innerHeight && r.left < w.innerWidth;
  }
  const frame = () => new Promise((res) => requestAnimationFrame(() => res()));

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

  // ---- a form that came back ----
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
  // Words that say something went wrong, in a message the page shows after a form was sent.
  const WRONG_WORDS = new RegExp(`\\b(${anyOf(vocabulary.error_words)})\\b`, "i");
  // Words of a class that mark an error message (at the start of a word of it), and good news
  // (a whole word of it).
  const ERROR_MARK = new RegExp(`^(${anyOf(vocabulary.error_marks)})`);
  const SUCCESS_MARK = new Set(vocabulary.success_marks);
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
      active.blur();
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

  // ---- the operation, retried until actionable or out of budget ----
  // ---- what a person sees, for the outline: painted, on the page, at a size ----
  // Judged by computed style and geometry, up the tree (across shadow roots and frames):
  // opacity, visibility, clip and clip-path, a box of (nearly) no size or inside one that
  // hides its overflow, off the page by position or transform. Text must also be drawn at a
  // size (font-size) and not pushed out of its box (text-indent).
  const hides = new Map();
  // A length of a clip-path (`50%`, `10px`) against the box's side.
  const lengthIn = (s, whole) => (String(s).endsWith("%") ? parseFloat(s) / 100 * whole : parseFloat(s) || 0);
  function clippedAway(st, r) {
    const clip = st.clip;
    if (clip && clip !== "auto" && (st.position === "absolute" || st.position === "fixed")) {
      const m = clip.match(/rect\(([^)]*)\)/);
      if (m) {
        const [t, right, b, l] = m[1].split(/[\s,]+/).filter(Boolean).map((v) => (v === "auto" ? NaN : parseFloat(v)));
        const w = (isNaN(right) ? r.width : right) - (isNaN(l) ? 0 : l);
        const h = (isNaN(b) ? r.height : b) - (isNaN(t) ? 0 : t);
        if (w <= 1 || h <= 1) return true;
      }
    }
    const path = st.clipPath;
    if (!path || path === "none") return false;
    let m = path.match(/^inset\(([^)]*)\)/);
    if (m) {
      const sides = m[1].split(/\s+round\s+/)[0].trim().split(/\s+/);
      const [t, right = t, b = t, l = right] = sides;
      return lengthIn(t, r.height) + lengthIn(b, r.height) >= r.height - 1
        || lengthIn(l, r.width) + lengthIn(right, r.width) >= r.width - 1;
    }
    m = path.match(/^(circle|ellipse)\(\s*([^\s)]*)\s*([^\s)]*)/);
    if (m) {
      const first = m[2] && !m[2].startsWith("at") ? parseFloat(m[2]) : NaN;
      const second = m[1] === "ellipse" && m[3] && !m[3].startsWith("at") ? parseFloat(m[3]) : NaN;
      return first <= 0.5 || second <= 0.5;
    }
    m = path.match(/^polygon\(([^)]*)\)/);
    if (m) {
      const points = m[1].split(",").map((p) => p.trim().split(/\s+/).filter((v) => !/^(nonzero|evenodd)$/.test(v)))
        .filter((p) => p.length === 2).map(([x, y]) => [lengthIn(x, r.width), lengthIn(y, r.height)]);
      let area = 0;
      for (let i = 0; i < points.length; i++) {
        const [x1, y1] = points[i], [x2, y2] = points[(i + 1) % points.length];
        area += x1 * y2 - x2 * y1;
      }
      return Math.abs(area) / 2 < 1;
    }
    return false;
  }
  // Whether `n` (an element) hides itself and all inside it.
  function hidesAll(n) {
    if (hides.has(n)) return hides.get(n);
    const st = styleOf(n);
    const r = n.getBoundingClientRect();
    // The root's and the body's overflow belongs to the viewport: it clips nothing of theirs.
    const root = tagOf(n) === "HTML" || tagOf(n) === "BODY";
    const overflowHidden = !root && (st.overflowX !== "visible" || st.overflowY !== "visible");
    const hidden = parseFloat(st.opacity) <= 0.01
      || clippedAway(st, r)
      || (st.display !== "contents" && overflowHidden && (r.width <= 1 || r.height <= 1));
    const answer = hidden || (!!up(n) && hidesAll(up(n)));
    hides.set(n, answer);
    return answer;
  }
  function painted(el) {
    if (!isVisible(el) || hidesAll(el)) return false;
    if (styleOf(el).display === "contents") return true;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return false;
    // Off the page: wholly before its start, or past its end, where no scrolling reaches.
    const win = view(el);
    const doc = el.ownerDocument.documentElement;
    const [left, top] = [r.left + win.scrollX, r.top + win.scrollY];
    if (left + r.width <= 0 || top + r.height <= 0) return false;
    if (left >= Math.max(doc.scrollWidth, win.innerWidth) || top >= Math.max(doc.scrollHeight, win.innerHeight)) return false;
    return true;
  }
  // Whether the text directly inside `el` is drawn: at a size, and not indented out of view.
  function drawsText(el) {
    const st = styleOf(el);
    if (parseFloat(st.fontSize) <= 1) return false;
    const indent = parseFloat(st.textIndent) || 0;
    return indent > -el.getBoundingClientRect().width;
  }
  // The text of `el` a person sees: its painted text, in order, whitespace collapsed.
  function paintedText(el) {
    if (tagOf(el) === "INPUT") return textOf(el);
    const parts = [];
    const walk = (node) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === Node.TEXT_NODE) {
          const p = c.parentElement;
          if (p && painted(p) && drawsText(p)) parts.push(transformed(c.data, styleOf(p).textTransform));
        } else if (c.nodeType === Node.ELEMENT_NODE && !SKIP.has(tagOf(c))) {
          if (c.shadowRoot) walk(c.shadowRoot);
          const block = !styleOf(c).display.startsWith("inline");
          if (block) parts.push(" ");
          walk(c);
          if (block) parts.push(" ");
        }
      }
    };
    walk(el);
    return tidy(parts.join(""));
  }
  // Text as CSS draws it (`text-transform`), as innerText gives it.
  function transformed(text, how) {
    if (how === "uppercase") return text.toUpperCase();
    if (how === "lowercase") return text.toLowerCase();
    if (how === "capitalize") return text.replace(/(^|\s)(\p{L})/gu, (m, a, b) => a + b.toUpperCase());
    return text;
  }
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

  // What the page offers instead of what the step looked for, on its last answer: the texts of
  // its controls (click), its fields' labels, aria-labels, placeholders, names and ids (fill,
  // code), its lines of text (text, extract). Each a fact of one kind, one `key` apart; the
  // Rust side writes names and ids as selectors and picks the ones closest to the query.
  function nearby() {
    const text = (t, max) => (t && t.length < max ? [{ kind: "text", text: t }] : []);
    if (req.op === "click") {
      return everything().filter((el) => el.matches(INTERACTIVE) && isVisible(el))
        .flatMap((el) => text(norm(textOf(el)) || norm(attr(el, "aria-label")), 80));
    }
    if (req.op === "fill" || req.op === "code") {
      const offers = [];
      for (const el of everything()) {
        if (tagOf(el) === "LABEL") offers.push(...text(norm(el.innerText), 80));
        if (!["INPUT", "TEXTAREA", "SELECT"].includes(tagOf(el))) continue;
        for (const a of ["aria-label", "placeholder", "name", "id"]) {
          const v = attr(el, a);
          if (!v) continue;
          // As `#id` and `[name=…]` these stay under 80 characters too.
          if (a === "id" && el.id.length < 79) offers.push({ kind: "id", id: el.id });
          else if (a === "name" && v.length < 73) offers.push({ kind: "name", name: v });
          else if (a !== "id" && a !== "name") offers.push(...text(norm(v), 80));
        }
      }
      return offers;
    }
    if (req.op === "text" || req.op === "extract") {
      return (bodyOf(document) ? bodyOf(document).innerText : "").split("\n").flatMap((l) => text(norm(l), 120));
    }
    return [];
  }
  // Offers once each, the first 60.
  function offered() {
    const keys = new Set();
    const out = [];
    for (const o of nearby()) {
      const key = `${o.kind}:${o.text ?? o.name ?? o.id}`;
      if (!keys.has(key)) { keys.add(key); out.push(o); }
    }
    return out.slice(0, 60);
  }

  // The answer as JSON the Rust side reads: only strings, numbers, booleans, null, arrays and
  // plain objects. Anything else that reached it (an element a page put where a string was
  // read) becomes the words that describe it, so no page can make an answer unreadable.
  function plain(v) {
    if (v === null || v === undefined) return null;
    if (typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") return Number.isFinite(v) ? v : null;
    if (Array.isArray(v)) return v.map(plain);
    if (typeof v === "object") {
      if (typeof v.nodeType === "number") {
        try { return v.nodeType === Node.ELEMENT_NODE ? describeEl(v) : String(v.textContent || ""); } catch (e) { return ""; }
      }
      const proto = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) {
        const out = {};
        for (const [k, x] of Object.entries(v)) if (x !== undefined && typeof x !== "function") out[k] = plain(x);
        return out;
      }
    }
    return String(v);
  }

  let last = null;
  for (;;) {
    let verdict;
    try {
      verdict = await attempt();
    } catch (e) {
      verdict = rejected({ kind: "script", message: String(e && e.message || e) });
    }
    if (verdict.state === "found" || verdict.state === "rejected") return plain(verdict);
    last = verdict;
    const left = budget - (performance.now() - started);
    if (left <= 0) break;
    await new Promise((res) => {
      const done = () => { mo.disconnect(); clearTimeout(t); res(); };
      const mo = new MutationObserver(done);
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const t = setTimeout(done, Math.min(left, 40));
    });
  }
  return plain({ ...last, seen: offered() });
};
}
