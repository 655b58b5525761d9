#!/usr/bin/env node
// The form flow of planlock's browser benchmark, driven by Playwright (playwright-core) against
// the same Chromium binary with the same launch flags, on the pages the Rust benchmark serves.
//
//   node flow.js BASE_URL ITERATIONS [LAUNCHES]   batch: prints one JSON object at the end
//   node flow.js BASE_URL --serve                 one command per stdin line, one JSON line back
//
// BASE_URL serves fixtures/site (form.html -> welcome.html). Times are in milliseconds: launch
// (chromium.launch), and per flow the whole run in a fresh context (newContext .. close) and its
// steps alone (goto .. text visible).
//
// --serve lets the Rust benchmark alternate planlock and Playwright run by run, so both sides
// see the same machine load: after launching its browser and two warm-up flows it prints
// {"ready":true,...}; then `launch` answers {"launch_ms":N} (a separate browser, launched and
// closed) and `flow` answers {"total":N,"steps_only":N,"steps":{...}}; end of input closes.
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

async function timedLaunch() {
  const t = now();
  const b = await launch();
  const took = ms(t);
  await b.close();
  return took;
}

function info(browser) {
  const pkg = require('playwright-core/package.json');
  return { playwright: pkg.version, node: process.version, browser: browser.version() };
}

async function serve(base) {
  const browser = await launch();
  try {
    for (let i = 0; i < 2; i++) await flow(browser, base);
    process.stdout.write(JSON.stringify({ ready: true, ...info(browser) }) + '\n');
    const rl = require('readline').createInterface({ input: process.stdin });
    for await (const line of rl) {
      const cmd = line.trim();
      let answer;
      try {
        if (cmd === 'launch') answer = { launch_ms: await timedLaunch() };
        else if (cmd === 'flow') answer = await flow(browser, base);
        else answer = { error: `unknown command ${JSON.stringify(cmd)}` };
      } catch (e) {
        answer = { error: String((e && e.stack) || e) };
      }
      process.stdout.write(JSON.stringify(answer) + '\n');
    }
  } finally {
    await browser.close();
  }
}

async function main() {
  const [base, iterArg, launchArg] = process.argv.slice(2);
  if (!base) {
    console.error('usage: node flow.js BASE_URL ITERATIONS [LAUNCHES] | node flow.js BASE_URL --serve');
    process.exit(2);
  }
  if (iterArg === '--serve') return serve(base);
  const iterations = Number(iterArg || 20);
  const launches = Number(launchArg || 0);

  const launchMs = [];
  for (let i = 0; i < launches; i++) launchMs.push(await timedLaunch());

  const browser = await launch();
  const about = info(browser);
  const runs = [];
  try {
    // Two unmeasured warm-up runs, as on the planlock side.
    for (let i = 0; i < 2; i++) await flow(browser, base);
    for (let i = 0; i < iterations; i++) runs.push(await flow(browser, base));
  } finally {
    await browser.close();
  }
  process.stdout.write(
    JSON.stringify({
      ...about,
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
