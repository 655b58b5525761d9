  // ---- finding ----

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

  // What a fill aimed at `el` should reach, as a person would operate it: the editable
  // control inside a custom element's open shadow root (<sl-input>).
  function editableInside(el) {
    if (isTextControl(el) || !el.shadowRoot) return el;
    for (const n of el.shadowRoot.querySelectorAll("*")) {
      const inner = n.shadowRoot ? editableInside(n) : n;
      if (isTextControl(inner)) return inner;
    }
    return el;
  }

  // ---- what a step's describe asks for: a role, a place ----
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

  // ---- the text a person reads ----
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


  // ---- the operations that read ----
  // `text`: is the step's text visible on the page, outside what others posted?
  /** @returns {Verdict<Seen>} */
  function text(/** @type {Asked<TextOp>} */ req) {
    const q = norm(req.text);
    // What others posted (a comment saying "your email is verified") says nothing of the
    // run: the page's text is read around those regions, never by cutting their words out
    // of the whole (an empty or one-word comment would cut those letters everywhere).
    const text = visibleText(userContentRegions());
    return norm(text).includes(q) ? found({}) : { state: "not_found" };
  }
  // `extract`: the visible text at the selector, or of the page's main content.
  /** @returns {Verdict<Extracted>} */
  function extract(/** @type {Asked<ExtractOp>} */ req) {
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
  // `accessible`: the role and accessible name of each element at the selector.
  /** @returns {Verdict<AccessibleElements>} */
  function accessible(/** @type {Asked<AccessibleOp>} */ req) {
    // What assistive technology announces for each element at the selector: its role and
    // accessible name, as the ranking reads them.
    const els = selectorAll(req.selector);
    return found({ elements: els.map((el) => ({ element: describeEl(el), role: roleOf(el), name: accName(el) })) });
  }
