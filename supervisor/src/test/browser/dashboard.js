// Drives the supervisor's dashboard in Debian's headless Chromium (run by WebDashboardBrowserTest):
// the page opened at the URL `status` prints takes its token and drops it from the address bar,
// loads without console errors, shows the live worker count and queue depths, resizes
// the workers from the page, retries a dead job from the page until it has run, and in the job
// browser lists the delayed jobs of the next hour and runs one now until it has succeeded, then
// lists the in-flight jobs, inspects the running one and cancels it.
// Usage: node dashboard.js URL DEAD_JOB_ID WORKERS_AFTER_RESIZE EXPECT_DELAYED SCREENSHOT.png
// Prints one JSON line: {"ok":true,"consoleErrors":[...],"steps":{name: ms}}; exits 1 on a failed step.
'use strict';
const { launch, pageCollectingErrors, run } = require('./chromium');

const [url, deadId, resizeTo, expectDelayed, screenshot] = process.argv.slice(2);
const TIMEOUT = 30000;

async function main() {
  const started = Date.now();
  const steps = {};
  const step = (name) => { steps[name] = Date.now() - started; };
  const consoleErrors = [];
  const browser = await launch();
  try {
    const page = await pageCollectingErrors(browser, { width: 1400, height: 1400 }, TIMEOUT, consoleErrors);
    page.on('requestfailed', r => consoleErrors.push('request failed: ' + r.url() + ' ' + (r.failure() || {}).errorText));

    await page.goto(url);  // the URL `delayq-supervisor status` prints, with #token=...
    const text = sel => page.locator(sel).innerText();
    await page.waitForFunction(() => document.getElementById('worker-count').textContent.trim() === '1');
    await page.waitForFunction(n => document.getElementById('depth-delayed').textContent.trim() === n, expectDelayed);
    await page.waitForFunction(() => document.getElementById('depth-dead').textContent.trim() === '1');
    if (page.url().includes('token=')) throw new Error('the token stayed in the address bar: ' + page.url());
    step('loaded with the token from the URL, 1 worker and the depths shown');

    await page.fill('#workers-input', resizeTo);
    await page.click('#resize-button');
    await page.waitForFunction(n => document.getElementById('toast').textContent.includes('-> ' + n), resizeTo);
    await page.waitForFunction(n => document.getElementById('worker-count').textContent.trim() === n
      && document.getElementById('worker-target').textContent.trim() === n, resizeTo);
    step('resized from the page, workers RUNNING');

    const row = page.locator('#dead-rows tr').filter({ hasText: deadId });
    await row.waitFor();
    await row.locator('button.retry').click();
    await page.waitForFunction(() => document.getElementById('toast').textContent.includes('back on ready'));
    await row.waitFor({ state: 'detached' });
    await page.waitForFunction(() => {
      for (const tr of document.querySelectorAll('#type-rows tr')) {
        const cells = tr.querySelectorAll('td');
        if (cells[0].textContent === 'test_flaky') return cells[3].textContent === '1';  // succeeded
      }
      return false;
    });
    await page.waitForFunction(() => document.getElementById('depth-dead').textContent.trim() === '0');
    step('dead job retried from the page and succeeded');

    const jobRows = page.locator('#job-rows tr');
    await page.waitForFunction(n => document.querySelectorAll('#job-rows tr').length === Number(n), expectDelayed);
    const firstJob = await jobRows.first().getAttribute('data-id');
    await jobRows.first().locator('button.promote').click();
    await page.waitForFunction(() => document.getElementById('toast').textContent.includes('due now'));
    try {
      await page.waitForFunction(() => {
        for (const tr of document.querySelectorAll('#type-rows tr')) {
          const cells = tr.querySelectorAll('td');
          if (cells[0].textContent === 'test_sleep') return cells[3].textContent === '1';  // succeeded
        }
        return false;
      });
    } catch (e) {
      throw new Error(e.message + '; types: ' + await text('#type-rows') + '; jobs: ' + await text('#job-rows'));
    }
    await page.waitForFunction(n => document.querySelectorAll('#job-rows tr').length === Number(n) - 1, expectDelayed);
    step('job browser listed the delayed jobs; one run now from the page succeeded');

    await page.selectOption('#jobs-view', 'inflight:0');
    await page.click('#jobs-search');
    const running = page.locator('#job-rows tr[data-id="long-runner"]');
    await running.filter({ hasText: 'IN_FLIGHT on ' }).waitFor();
    await running.locator('button.inspect').click();
    await page.waitForFunction(() => {
      const t = document.getElementById('job-inspect').textContent;
      return t.includes('"id": "long-runner"') && t.includes('"state": "IN_FLIGHT"');
    });
    page.once('dialog', d => d.accept());
    await running.locator('button.cancel').click();
    await page.waitForFunction(() => document.getElementById('toast').textContent.includes('interrupt'));
    await running.waitFor({ state: 'detached' });
    step('job browser listed the running job in flight, inspected it and cancelled it');

    await page.waitForTimeout(1600); // one more poll, so the charts show the run
    await page.screenshot({ path: screenshot, fullPage: true });
    step('screenshot');
    console.log(JSON.stringify({ ok: true, consoleErrors: consoleErrors, steps: steps,
      workerCount: await text('#worker-count'), promoted: firstJob }));
  } finally {
    await browser.close();
  }
}

run(main);
