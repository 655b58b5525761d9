// The look's outline: what a person sees of a page's structure (title, headings, each form's
// fields and buttons, the texts of other links and buttons by landmark) for a planner that has
// not seen the page. Its own script, not a locator operation: evaluated by browser/outline.rs
// in planlock's isolated world, joined from this opening, the locator's common.js and page.js
// (the page model), and outline.js, which closes it. `accname` is dom-accessibility-api's
// computation of roles and accessible names (vendor/accname.js), as the locator has it.
// Answers a verdict as the locator does: `found` with the outline, `loading` while the document
// is still being parsed, `rejected` when the script failed.
(accname) => async (/** @type {OutlineRequest} */ request) => {
