// Bundles dom-accessibility-api (the pinned version in package-lock.json) into one JavaScript
// expression, src/browser/vendor/accname.js, that the locator receives as its `accname`
// argument.
// `node build.mjs` writes the file; `node build.mjs --check` exits 1 when the file is not what
// this build makes (a test runs it, so a stale bundle fails).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "../../src/browser/vendor/accname.js");
const version = JSON.parse(readFileSync(join(here, "node_modules/dom-accessibility-api/package.json"), "utf8")).version;

const built = await esbuild.build({
  entryPoints: [join(here, "entry.mjs")],
  bundle: true,
  write: false,
  format: "iife",
  globalName: "accname",
  target: "chrome120",
  legalComments: "inline",
  charset: "utf8",
});
const code = built.outputFiles[0].text;
const text = `// dom-accessibility-api ${version} (MIT), bundled by scripts/accname/build.mjs with esbuild
// ${esbuild.version}: do not edit; run scripts/accname/build to regenerate. One expression, the
// package's { computeAccessibleName, getRole }, passed to the locator (locator/).
(() => {
${code}return accname;
})()
`;

if (process.argv.includes("--check")) {
  let current = "";
  try { current = readFileSync(out, "utf8"); } catch (e) { current = ""; }
  if (current !== text) {
    console.error(`src/browser/vendor/accname.js is not what scripts/accname/build makes from dom-accessibility-api ${version}: run scripts/accname/build`);
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
  console.error(`wrote src/browser/vendor/accname.js (dom-accessibility-api ${version}, ${text.length} bytes)`);
}
