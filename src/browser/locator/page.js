  // ---- reading the DOM as it is, not as a page named it ----
  // A form's controls are also its properties (`<button name="action">` makes `form.action`
  // that button, as on django-allauth's set-password page), and so are some named elements
  // of a document. The locator reads through the prototypes' own getters, which no name on
  // the page can shadow.
  // (Each property read is one the platform defines: its descriptor exists.)
  /** @type {(proto: object, name: string) => (this: any) => any} */
  const getter = (proto, name) => /** @type {any} */ (Object.getOwnPropertyDescriptor(proto, name)).get;
  /** @type {(proto: object, name: string) => (this: any, ...args: any[]) => any} */
  const methodOf = (proto, name) => /** @type {any} */ (Object.getOwnPropertyDescriptor(proto, name)).value;
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
        /** @type {Document | null} */
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
  /** @type {Element[] | null} */
  let tree = null;
  /** @type {(Document | ShadowRoot)[]} */
  let treeRoots = [];
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
    /** @type {string | null} */
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
  // The page landmark an element sits in when that is not main content: "nav", "header",
  // "footer" or "aside" (elements or their ARIA roles). A header or footer inside an article,
  // section or main belongs to that content, as browsers map them; a dialog is main content.
  const LANDMARK_ROLES = { navigation: "nav", banner: "header", contentinfo: "footer", complementary: "aside" };
  function landmarkOf(el) {
    /** @type {string | false | null} */
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


  // ---- what an action reaches, and what is never read ----
  // Elements whose text no person reads.
  const SKIP = new Set(["SCRIPT", "STYLE", "HEAD", "TITLE", "TEMPLATE", "NOSCRIPT"]);
  // The element a click aimed at `el` should land on, as a person would operate it: for a
  // native checkbox or radio that the page hides behind a styled one, its label or visible
  // wrapper.
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


  // A new attempt reads the page afresh: the tree, and the names and roles computed on it.
  function fresh() {
    tree = null;
    treeRoots = [];
    names = new Map();
    roles = new Map();
  }
