// What both browser scripts of WebDashboardBrowserTest share: Debian's headless Chromium with the
// flags this machine needs, a page that collects console and page errors, and the one JSON line a
// failed script prints before it exits 1.
'use strict';
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    // no sandbox as root, and no calls home on a closed network
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A new page of `browser` whose console and page errors go to `consoleErrors`. */
async function pageCollectingErrors(browser, viewport, timeout, consoleErrors) {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(timeout);
  page.on('console', m => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', e => consoleErrors.push('page error: ' + e.message));
  return page;
}

/** Runs `main`, and on a failure prints {"ok":false,"error":...} and exits 1. */
function run(main) {
  main().catch(e => {
    console.log(JSON.stringify({ ok: false, error: String(e && e.stack || e) }));
    process.exit(1);
  });
}

module.exports = { launch, pageCollectingErrors, run };
