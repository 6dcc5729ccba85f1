// Drives the dashboard's queue picker in Debian's headless Chromium (run by WebDashboardBrowserTest):
// a system of several queues shows a picker with each queue, the depths of queue.name's queue at
// first, the other queue's once it is picked, and the whole-queue pause button pauses the picked
// queue.
// Usage: node queue-picker.js URL OTHER_QUEUE MAIN_DELAYED OTHER_DELAYED
// Prints one JSON line: {"ok":true,"consoleErrors":[...],"options":[...]}; exits 1 on a failed step.
'use strict';
const { launch, pageCollectingErrors, run } = require('./chromium');

const [url, other, mainDelayed, otherDelayed] = process.argv.slice(2);

async function main() {
  const consoleErrors = [];
  const browser = await launch();
  try {
    const page = await pageCollectingErrors(browser, { width: 1400, height: 1000 }, 30000, consoleErrors);
    await page.goto(url);
    await page.locator('#queue-picker').waitFor({ state: 'visible' });
    await page.waitForFunction(n => document.getElementById('depth-delayed').textContent.trim() === n, mainDelayed);
    const options = await page.locator('#queue-picker option').allTextContents();
    await page.selectOption('#queue-picker', other);
    await page.waitForFunction(n => document.getElementById('depth-delayed').textContent.trim() === n, otherDelayed);
    page.once('dialog', d => d.accept());
    await page.click('#pause-queue-button');
    await page.locator('#queue-paused').waitFor({ state: 'visible' });
    console.log(JSON.stringify({ ok: true, consoleErrors: consoleErrors, options: options }));
  } finally {
    await browser.close();
  }
}

run(main);
