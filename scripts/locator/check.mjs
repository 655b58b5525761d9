// Joins the locator's parts in the order src/browser/locate.rs lists them (its `locator_parts!`),
// and the outline's as src/browser/outline.rs does (`outline_parts!`), as the build does, and
// runs TypeScript's checker over both as JavaScript (`checkJs`, strict but for implicit `any`:
// the DOM's types and the JSDoc types of locator/types.js). The scripts' arguments (accname,
// vocabulary, reachOver) are checked as untyped. Errors are reported at their part and line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";

// How strictly: `strict` (null checks, strict function types, `this`, catch variables as
// `unknown`…), but for `noImplicitAny`: an unannotated parameter is `any`. Requiring a JSDoc
// type on each of the locator's ~330 parameters would double its comments for little: the
// request, the answers and the operations are typed (types.js), and what flows between them
// is checked against those types.
const STRICTNESS = ["--strict", "true", "--noImplicitAny", "false"];

const here = dirname(fileURLToPath(import.meta.url));
const browser = join(here, "../../src/browser");

// A script's parts (paths under src/browser/), as `list!(…);` in `file` lists them; `under` is
// the folder the list's names are in.
function partsOf(file, list, under) {
  const rust = readFileSync(join(browser, file), "utf8");
  const m = rust.match(new RegExp(`^${list}!\\(([\\s\\S]*?)^\\);`, "m"));
  if (!m) {
    console.error(`src/browser/${file} has no \`${list}!(…);\` list of the script's parts`);
    process.exit(2);
  }
  return [...m[1].matchAll(/^\s*"([^"]+)",/gm)].map((p) => join(under, p[1]));
}
const scripts = [
  { name: "locator", parts: partsOf("locate.rs", "locator_parts", "locator") },
  { name: "outline", parts: partsOf("outline.rs", "outline_parts", "") },
];

// Each script joined into a file of its own: a header line, then `(` and the parts, as the
// Rust side joins them; a module, so the two scripts' names and types stay apart.
const dir = mkdtempSync(join(tmpdir(), "planlock-locator-"));
const spans = new Map();
for (const script of scripts) {
  const header = `// @ts-check\nconst ${script.name} = (`;
  const own = [];
  let text = header;
  let line = header.split("\n").length;
  for (const part of script.parts) {
    const body = readFileSync(join(browser, part), "utf8");
    own.push({ part, from: line });
    text += body;
    line += body.split("\n").length - 1;
  }
  text += ");\nexport {};\n";
  script.file = join(dir, `${script.name}.js`);
  writeFileSync(script.file, text);
  spans.set(`${script.name}.js`, own);
}
const tsc = spawnSync(process.execPath, [
  join(here, "node_modules/typescript/bin/tsc"),
  "--noEmit", "--allowJs", "--checkJs", ...STRICTNESS, "--skipLibCheck", "--pretty", "false",
  "--target", "es2022", "--module", "es2022", "--lib", "es2022,dom,dom.iterable", "--types", "",
  ...scripts.map((s) => s.file),
], { encoding: "utf8" });
rmSync(dir, { recursive: true, force: true });
if (tsc.error) {
  console.error(`locator/check: could not run TypeScript's checker: ${tsc.error.message}`);
  process.exit(2);
}
// `…/locator.js(12,5): error TS…` read as `src/browser/locator/find.js:3:5: error TS…`.
const where = (file, n) => {
  const span = (spans.get(file) || []).filter((s) => s.from <= n).pop();
  return span ? `src/browser/${span.part}:${n - span.from + 1}` : `(the join's header of ${file}):${n}`;
};
const out = (tsc.stdout + tsc.stderr).split("\n").filter(Boolean).map((l) => {
  const m = l.match(/^.*?([a-z]+\.js)\((\d+),(\d+)\): (.*)$/);
  // A part both scripts share is named once for each, with the script it was read in.
  return m ? `${where(m[1], Number(m[2]))}:${m[3]}: ${m[4]} (in the ${m[1].replace(/\.js$/, "")})` : l;
});
const count = scripts.map((s) => `the ${s.name}'s ${s.parts.length} parts`).join(" and ");
if (tsc.status !== 0) {
  console.error(out.join("\n"));
  console.error(`locator/check: ${out.filter((l) => / error TS/.test(l)).length} type error(s) in ${count}`);
  process.exit(1);
}
console.log(`locator/check: ${count} type-check`);
