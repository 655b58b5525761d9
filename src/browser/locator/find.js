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

