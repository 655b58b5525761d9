// What the locator takes from dom-accessibility-api: the accessible name (accname) and the
// role (ARIA, else HTML-AAM's implicit one) of an element.
export { computeAccessibleName, getRole } from "dom-accessibility-api";
