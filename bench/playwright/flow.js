#!/usr/bin/env node
// The form flow of planlock's browser benchmark, driven by Playwright (playwright-core) against
// the same Chromium binary with the same launch flags, on the pages the Rust benchmark serves.
//
//   node flow.js BASE_URL ITERATIONS [LAUNCHES]
//
// BASE_URL serves fixtures/site (form.html -> welcome.html). Prints one JSON object on stdout:
// launch times, and per iteration the whole flow in a fresh context (newContext .. close) and
// its steps alone (goto .. text visible), all in milliseconds.
'use strict';

const { chromium } = require('playwright-core');

const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function executable() {
  return process.env.CHROME || '/usr/bin/chromium';
}

function launch() {
  return chromium.launch({ executablePath: executable(), headless: true, args: FLAGS });
}

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = () => process.hrtime.bigint();

async function flow(browser, base) {
  const t0 = now();
  const context = await browser.newContext();
  const page = await context.newPage();
  const steps = {};
  const s0 = now();
  let t = now();
  await page.goto(`${base}/form.html`); // waits for `load`, as planlock's navigate does
  steps.goto = ms(t);
  t = now();
  await page.getByLabel('Full name').fill('Ada Lovelace');
  await page.getByLabel('Email address').fill('ada@example.com');
  await page.getByLabel('Company').fill('ACME');
  await page.getByLabel('Password').fill('pw');
  steps.fill4 = ms(t);
  t = now();
  await page.getByRole('button', { name: 'Create account' }).click();
  steps.click = ms(t);
  t = now();
  await page.getByText('Welcome aboard').waitFor({ state: 'visible' });
  steps.wait_for_text = ms(t);
  const stepsOnly = ms(s0);
  const who = await page.locator('#who').textContent();
  if (!who || !who.includes('ada@example.com') || !who.includes('ACME')) {
    throw new Error(`the flow did not submit the form: ${JSON.stringify(who)}`);
  }
  await context.close();
  return { total: ms(t0), steps_only: stepsOnly, steps };
}

async function main() {
  const [base, iterArg, launchArg] = process.argv.slice(2);
  if (!base) {
    console.error('usage: node flow.js BASE_URL ITERATIONS [LAUNCHES]');
    process.exit(2);
  }
  const iterations = Number(iterArg || 20);
  const launches = Number(launchArg || 0);

  const launchMs = [];
  for (let i = 0; i < launches; i++) {
    const t = now();
    const b = await launch();
    launchMs.push(ms(t));
    await b.close();
  }

  const browser = await launch();
  const version = browser.version();
  const runs = [];
  try {
    // Two unmeasured warm-up runs, as on the planlock side.
    for (let i = 0; i < 2; i++) await flow(browser, base);
    for (let i = 0; i < iterations; i++) runs.push(await flow(browser, base));
  } finally {
    await browser.close();
  }
  const pkg = require('playwright-core/package.json');
  process.stdout.write(
    JSON.stringify({
      playwright: pkg.version,
      node: process.version,
      browser: version,
      launch_ms: launchMs,
      flow_total_ms: runs.map((r) => r.total),
      flow_steps_ms: runs.map((r) => r.steps_only),
      step_ms: {
        goto: runs.map((r) => r.steps.goto),
        fill4: runs.map((r) => r.steps.fill4),
        click: runs.map((r) => r.steps.click),
        wait_for_text: runs.map((r) => r.steps.wait_for_text),
      },
    }) + '\n',
  );
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
