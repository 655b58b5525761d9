#!/usr/bin/env node
// How long Chromium itself takes to capture the viewport (`Page.captureScreenshot` over CDP),
// after a DOM change, for a few formats and sizes: the floor under planlock's per-step
// screenshots. Extra Chromium flags come from $EXTRA (space-separated).
//
//   node capture.js [CHROMIUM]            default /usr/lib/chromium/chromium
//   EXTRA=--disable-frame-rate-limit node capture.js
'use strict';

const { chromium } = require('playwright-core');

const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];

(async () => {
  const extra = (process.env.EXTRA || '').split(' ').filter(Boolean);
  const browser = await chromium.launch({
    executablePath: process.argv[2] || '/usr/lib/chromium/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--window-size=1280,900', ...extra],
  });
  const context = await browser.newContext({ viewport: null });
  const page = await context.newPage();
  await page.setContent(
    '<h1>Hello</h1><form><label>Name <input id=n></label><button>Go</button></form><p>' +
      'text '.repeat(300) + '</p>'
  );
  const cdp = await context.newCDPSession(page);
  const kinds = {
    'png, full viewport': { format: 'png', optimizeForSpeed: true },
    'png, 10x10 clip': {
      format: 'png', optimizeForSpeed: true, clip: { x: 0, y: 0, width: 10, height: 10, scale: 1 },
    },
    'jpeg q80, full viewport': { format: 'jpeg', quality: 80 },
  };
  for (const [name, params] of Object.entries(kinds)) {
    const ms = [];
    for (let i = 0; i < 21; i++) {
      await page.evaluate((i) => { document.querySelector('#n').value = 'x' + i; }, i);
      const t0 = performance.now();
      await cdp.send('Page.captureScreenshot', params);
      ms.push(performance.now() - t0);
    }
    console.log(`${name}: median ${median(ms).toFixed(1)} ms of 21`);
  }
  await browser.close();
})();
