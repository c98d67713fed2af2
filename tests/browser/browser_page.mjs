// browser_page.mjs: shared by the browser tests (tests/browser, and the live
// page's in tests/live): opens headless Chromium refusing and recording
// every request but the page's own, collecting console and page errors;
// withReport writes an HTML report with the tool and opens it over file://.
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {createRequire} from 'node:module';
import {pathToFileURL} from 'node:url';

export const kChromium = '/usr/bin/chromium';

// Exits with the ctest skip code (77) when Chromium is not installed.
export function requireChromium() {
  if (!fs.existsSync(kChromium)) {
    console.log(`SKIP: ${kChromium} is missing (scripts/install-deps.sh ` +
                'installs Debian\'s chromium)');
    process.exit(77);
  }
}

let failures = 0;
export function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

export function finish() {
  console.log(`${failures === 0 ? 'PASS' : 'FAIL'}: ${failures} failed checks`);
  process.exit(failures === 0 ? 0 : 1);
}

// Opens headless Chromium (a fresh profile) at `width` x `height`, routes
// every request through allow(url) (false: refused and recorded), and calls
// body({page, errors, requests}) with the page's console and page errors.
export async function withBrowser({width, height, allow}, body) {
  // playwright-core comes from web/node_modules, next to the embedded uPlot.
  const require = createRequire(
    path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..',
              'web', 'package.json'));
  const {chromium} = require('playwright-core');
  const userDataDir =
    fs.mkdtempSync(path.join(os.tmpdir(), 'andweorc-chromium-'));
  // A fresh profile directory per run: nothing from an earlier run leaks in.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: kChromium,
    viewport: {width: width || 1200, height: height || 900},
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
           '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    const errors = [];
    const requests = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', e => errors.push(String(e)));
    await page.route('**/*', route => {
      const url = route.request().url();
      if (allow(url)) return route.continue();
      requests.push(url);
      return route.abort();
    });
    await body({page, errors, requests});
  } finally {
    await context.close();
    fs.rmSync(userDataDir, {recursive: true, force: true});
  }
}

// Writes OUT_DIR/NAME with `andweorc report PROFILE -f html EXTRA...`, opens
// it at `width` x `height` over file:// (any other request refused) and calls
// body({page, errors, requests, report}).
export async function withReport({andweorc, profile, outDir, name, extra,
                                  width, height}, body) {
  fs.mkdirSync(outDir, {recursive: true});
  const report = path.join(outDir, name);
  execFileSync(andweorc, ['report', profile, '--format', 'html', '-o', report,
                          ...(extra || [])], {stdio: 'inherit'});
  console.log(`report: ${report} (${fs.statSync(report).size} bytes)`);
  await withBrowser({width, height, allow: url => url.startsWith('file:')},
                    async ({page, errors, requests}) => {
    await page.goto(pathToFileURL(report).href, {waitUntil: 'load'});
    await body({page, errors, requests, report});
  });
}
