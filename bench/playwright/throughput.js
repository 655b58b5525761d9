#!/usr/bin/env node
// The throughput side of planlock's benchmark, driven by Playwright: the demo shop's signup with
// an emailed code, N runs at once in one browser (a context per run), the code read over IMAP
// from the same Dovecot planlock reads, as a hand-written script would do it.
//
//   node throughput.js --serve      one command per stdin line, one JSON line back
//   node throughput.js --once       a whole script: launch, one signup, close, exit
//
// Configuration comes from the environment: BASE (the demo shop's origin), IMAP_PORT, IMAP_USER,
// IMAP_PASS, MAIL_DOMAIN (addresses are IMAP_USER+TAG@MAIL_DOMAIN), CHROME (the browser binary),
// and optionally PLAYWRIGHT_EXTRA_ARGS (more Chromium flags, space-separated).
// After launching its browser, connecting to IMAP and two warm-up runs it prints
// {"ready":true,...}; then `batch RUNS CONCURRENCY` answers
// {"wall_ms":N,"runs_ms":[...],"phases":[{"context ready":MS,"step 1":MS,...},...],"failures":[...]}
// (phases: when each part of a run ended, in ms since its start); end of input closes the
// browser.
'use strict';

const { chromium } = require('playwright-core');
const { ImapFlow } = require('imapflow');

// The flags of bench/playwright/flow.js: what Playwright users pass in containers.
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
const POLL_MS = 25; // planlock's poll interval for an IMAP server on loopback
const MAIL_TIMEOUT_MS = 60000;

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`throughput.js: ${name} is not set`);
  return v;
};
const BASE = env('BASE');
const USER = env('IMAP_USER');
const DOMAIN = env('MAIL_DOMAIN');

const now = () => process.hrtime.bigint();
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/// One IMAP connection for every run, polled while someone waits for mail (as planlock does).
class Mail {
  constructor() {
    this.client = new ImapFlow({
      host: '127.0.0.1',
      port: Number(env('IMAP_PORT')),
      secure: false,
      auth: { user: USER, pass: env('IMAP_PASS') },
      logger: false,
    });
    this.waiting = new Map(); // address -> resolve
    this.lastUid = 0;
    this.polling = null;
  }

  async open() {
    await this.client.connect();
    const box = await this.client.mailboxOpen('INBOX');
    this.lastUid = box.uidNext - 1;
  }

  /// The 6-digit code of the next mail to `address`.
  code(address) {
    const found = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(address);
        reject(new Error(`no mail to ${address} within ${MAIL_TIMEOUT_MS} ms`));
      }, MAIL_TIMEOUT_MS);
      this.waiting.set(address, (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    if (!this.polling) this.polling = this.poll();
    return found;
  }

  async poll() {
    try {
      while (this.waiting.size > 0) {
        await this.client.noop();
        const uids = (await this.client.search({ uid: `${this.lastUid + 1}:*` }, { uid: true })) || [];
        const fresh = uids.filter((u) => u > this.lastUid);
        if (fresh.length > 0) {
          for await (const msg of this.client.fetch(fresh, { uid: true, source: true }, { uid: true })) {
            this.lastUid = Math.max(this.lastUid, msg.uid);
            const text = msg.source.toString('utf8');
            const to = /^To:\s*<?([^\s>\r\n]+)>?/im.exec(text);
            const code = /verification code is:\s*(\d{6})/i.exec(text);
            const deliver = to && this.waiting.get(to[1].toLowerCase());
            if (deliver && code) {
              this.waiting.delete(to[1].toLowerCase());
              deliver(code[1]);
            }
          }
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } finally {
      this.polling = null;
    }
  }
}

let serial = 0;

/// One signup; its time and, in `phases`, the milliseconds since its start at which each part
/// ended (the names the benchmark's per-phase table pairs with planlock's).
async function signup(browser, mail) {
  const t0 = now();
  const phases = {};
  const mark = (name) => {
    phases[name] = ms(t0);
  };
  serial += 1;
  const address = `${USER}+pw${process.pid}x${serial}@${DOMAIN}`.toLowerCase();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    mark('context ready');
    await page.goto(`${BASE}/signup`);
    mark('step 1');
    await page.getByLabel('Email').fill(address);
    mark('step 2');
    await page.getByLabel('Password').fill('correct horse battery staple');
    mark('step 3');
    const code = mail.code(address);
    await page.getByRole('button', { name: 'Create account' }).click();
    mark('step 4');
    const digits = await code;
    mark('step 5');
    const boxes = page.locator('input.otp');
    for (let i = 0; i < digits.length; i++) await boxes.nth(i).fill(digits[i]);
    mark('step 6');
    await page.getByRole('button', { name: 'Verify' }).click();
    mark('step 7');
    await page.getByText('Your email is verified').waitFor({ state: 'visible' });
    mark('step 8');
  } finally {
    await context.close();
    mark('tab closed');
  }
  return { ms: ms(t0), phases };
}

async function batch(browser, mail, runs, concurrency) {
  const runsMs = [];
  const phases = [];
  const failures = [];
  let next = 0;
  const t0 = now();
  const worker = async () => {
    while (next < runs) {
      next += 1;
      try {
        const run = await signup(browser, mail);
        runsMs.push(run.ms);
        phases.push(run.phases);
      } catch (e) {
        failures.push(String((e && e.message) || e));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { wall_ms: ms(t0), runs_ms: runsMs, phases, failures };
}

/// A whole script: launch, connect to IMAP, one signup, close. What `planlock run` of the
/// same plan is compared with, process against process.
async function once() {
  const browser = await launchBrowser();
  const mail = new Mail();
  await mail.open();
  try {
    await signup(browser, mail);
  } finally {
    await browser.close();
    await mail.client.logout().catch(() => {});
  }
}

function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROME || '/usr/bin/chromium',
    headless: true,
    args: [...FLAGS, ...(process.env.PLAYWRIGHT_EXTRA_ARGS || '').split(' ').filter(Boolean)],
  });
}

async function main() {
  if (process.argv[2] === '--once') return once();
  if (process.argv[2] !== '--serve') {
    console.error('usage: node throughput.js --serve|--once   (configured by the environment: see the top of this file)');
    process.exit(2);
  }
  const browser = await launchBrowser();
  const mail = new Mail();
  await mail.open();
  try {
    for (let i = 0; i < 2; i++) await signup(browser, mail);
    const pkg = require('playwright-core/package.json');
    process.stdout.write(
      JSON.stringify({ ready: true, playwright: pkg.version, node: process.version, browser: browser.version() }) + '\n',
    );
    const rl = require('readline').createInterface({ input: process.stdin });
    for await (const line of rl) {
      const [cmd, a, b] = line.trim().split(/\s+/);
      let answer;
      try {
        if (cmd === 'batch') answer = await batch(browser, mail, Number(a), Number(b));
        else answer = { error: `unknown command ${JSON.stringify(line)}` };
      } catch (e) {
        answer = { error: String((e && e.stack) || e) };
      }
      process.stdout.write(JSON.stringify(answer) + '\n');
    }
  } finally {
    await browser.close();
    await mail.client.logout().catch(() => {});
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
