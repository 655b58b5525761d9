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
return async (/** @type {Request} */ request) => {
  // `explain`: the click or fill it wraps, found and ranked as that step would be, rule by rule,
  // and acted on in no way (for `scripts/bench --explain`).
  /** @type {Step} */
  const req = request.op === "explain" ? { ...request.of, budget_ms: request.budget_ms, explain: true } : request;
  const started = performance.now();
  const budget = req.budget_ms;

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

