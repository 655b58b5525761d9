// The package as a user gets it: `npm pack` makes a tarball, the tarball installs in a fresh
// project, and the README's snippet compiles there under `tsc --strict` against the installed
// types (a result narrows on `status`); the same code reading `error` without narrowing does
// not compile.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";

const HERE = resolve(import.meta.dirname, "..");
const TSC = join(HERE, "node_modules/.bin/tsc");

function tsconfig(dir) {
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022",
      noEmit: true, types: ["node"], typeRoots: [join(HERE, "node_modules/@types")],
    },
    files: ["snippet.ts"],
  }));
}

test("npm pack gives a tarball that installs in a fresh project, where the README compiles", () => {
  const work = mkdtempSync(join(tmpdir(), "planlock-ts-pack-"));
  execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: HERE, stdio: "pipe" });
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  assert.ok(tarball, "npm pack made no tarball");

  const project = join(work, "project");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "uses-planlock", private: true, type: "module" }));
  execFileSync("npm", ["install", "--silent", "--no-audit", "--no-fund", join(work, tarball)], { cwd: project, stdio: "pipe" });
  // The installed package loads.
  const loaded = execFileSync("node", ["-e", "import('planlock-client').then((m) => console.log(typeof m.Planlock))"],
    { cwd: project, encoding: "utf8" });
  assert.equal(loaded.trim(), "function");

  const readme = readFileSync(join(HERE, "README.md"), "utf8");
  const snippet = readme.match(/```ts\n([\s\S]*?)```/)[1];
  writeFileSync(join(project, "snippet.ts"), snippet);
  tsconfig(project);
  const compiled = spawnSync(TSC, ["-p", project], { encoding: "utf8" });
  assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);

  // Without the narrowing, `error` may be null: tsc --strict refuses it.
  const careless = snippet.replace(/if \(result\.status === "succeeded"\)[^\n]*\n/, "").replace(/else if \(result\.status === "failed"\) /, "");
  assert.notEqual(careless, snippet);
  writeFileSync(join(project, "snippet.ts"), careless);
  const refused = spawnSync(TSC, ["-p", project], { encoding: "utf8" });
  assert.notEqual(refused.status, 0, careless);
  assert.match(refused.stdout, /possibly 'null'|possibly 'undefined'/);
});
