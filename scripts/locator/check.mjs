// Joins the locator's parts in the order src/browser/locate.rs lists them (its `locator_parts!`),
// as the build does, and runs TypeScript's checker over the result as JavaScript (`checkJs`,
// not strict: the DOM's types and the locator's own JSDoc). The locator's arguments (accname,
// vocabulary, reachOver) are checked as untyped. Errors are reported at their part and line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";

const here = dirname(fileURLToPath(import.meta.url));
const browser = join(here, "../../src/browser");
const rust = readFileSync(join(browser, "locate.rs"), "utf8");
const list = rust.match(/^locator_parts!\(([\s\S]*?)^\);/m);
if (!list) {
  console.error("src/browser/locate.rs has no `locator_parts!(…);` list of the locator's parts");
  process.exit(2);
}
const parts = [...list[1].matchAll(/^\s*"([^"]+)",/gm)].map((m) => m[1]);

// The joined file: a header line, then `(` and the parts, as LOCATOR_JS has them.
const header = "// @ts-check\nconst locator = (";
const spans = [];
let text = header;
let line = header.split("\n").length;
for (const part of parts) {
  const body = readFileSync(join(browser, "locator", part), "utf8");
  spans.push({ part, from: line });
  text += body;
  line += body.split("\n").length - 1;
}
text += ");\n";

const dir = mkdtempSync(join(tmpdir(), "planlock-locator-"));
const file = join(dir, "locator.js");
writeFileSync(file, text);
const tsc = spawnSync(process.execPath, [
  join(here, "node_modules/typescript/bin/tsc"),
  "--noEmit", "--allowJs", "--checkJs", "--strict", "false", "--skipLibCheck", "--pretty", "false",
  "--target", "es2022", "--lib", "es2022,dom,dom.iterable", "--types", "",
  file,
], { encoding: "utf8" });
rmSync(dir, { recursive: true, force: true });
if (tsc.error) {
  console.error(`locator/check: could not run TypeScript's checker: ${tsc.error.message}`);
  process.exit(2);
}
// `…/locator.js(12,5): error TS…` read as `src/browser/locator/find.js:3:5: error TS…`.
const where = (n) => {
  const span = spans.filter((s) => s.from <= n).pop();
  return span ? `src/browser/locator/${span.part}:${n - span.from + 1}` : `(the join's header):${n}`;
};
const out = (tsc.stdout + tsc.stderr).split("\n").filter(Boolean).map((l) => {
  const m = l.match(/^.*locator\.js\((\d+),(\d+)\): (.*)$/);
  return m ? `${where(Number(m[1]))}:${m[2]}: ${m[3]}` : l;
});
if (tsc.status !== 0) {
  console.error(out.join("\n"));
  console.error(`locator/check: ${out.filter((l) => / error TS/.test(l)).length} type error(s) in the locator's ${parts.length} parts`);
  process.exit(1);
}
console.log(`locator/check: the locator's ${parts.length} parts type-check`);
