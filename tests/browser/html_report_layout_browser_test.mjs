// html_report_layout_browser_test.mjs: the HTML report of a profile shaped
// like a real program's (absolute build paths with "//" and "..", long C and
// C++ names, several lines per function) reads well in headless Chromium.
//
// Usage: node html_report_layout_browser_test.mjs ANDWEORC PROFILE OUT_DIR
// Writes OUT_DIR/layout.html and, for people, OUT_DIR/layout.png (1400 px
// wide). Checks: the summary is the first thing after the title and names the
// top region with its impact and prediction; no rendered text holds "//" or
// "/../" (every fold opened); paths are relative to the build root with the
// whole path on hover; lines are grouped under their function and the groups
// expand and fold; long names wrap at their "_" and "::" instead of falling
// apart into a few letters per line; a recorded convergence state ends the
// summary; no console error, no network request.
// Exit 0 on success, 1 on a failed check, 77 when Chromium is missing.
import {check, finish, requireChromium, withReport} from './browser_page.mjs';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [andweorc, profile, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: html_report_layout_browser_test.mjs ANDWEORC ' +
                'PROFILE OUT_DIR');
  process.exit(2);
}
requireChromium();

const kRoot = '/home/ci/builds/libzstd-1.5.4+dfsg2/';
const kTopFunction = 'ZSTD_compressBlock_doubleFast_noDict_generic';

await withReport({andweorc, profile, outDir, name: 'layout.html',
                  width: 1400, height: 1000},
                 async ({page, errors, requests, report}) => {
  await page.waitForSelector('#causal-table tbody tr');
  await page.screenshot({path: path.join(outDir, 'layout.png')});

  // The answer first: the summary directly follows the title.
  const order = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#report > *'), e => e.id || e.tagName));
  check(order[0] === 'HEADER' && order[1] === 'summary',
        `the summary comes right after the title (${order.join(', ')})`);
  const tops = await page.evaluate(() => {
    const top = id => document.getElementById(id).getBoundingClientRect().top;
    return {summary: top('summary'), details: top('run-details'),
            causal: top('causal')};
  });
  check(tops.summary < tops.details && tops.summary < tops.causal &&
        tops.summary < 300,
        `the summary is on the first screen, above the run details and the ` +
        `table (${JSON.stringify(tops)})`);
  const summary = await page.$eval('#summary', e => e.innerText);
  check(new RegExp('Top region: lib/compress/zstd_double_fast\\.c:191 in ' +
                   kTopFunction + ', impact 0\\.\\d\\d \\[0\\.\\d\\d, ' +
                   '0\\.\\d\\d\\]: 10% faster there → program \\+\\d\\.\\d%')
          .test(summary), `the summary names the top region ("${summary}")`);
  check(/\d+ of 7 regions are significant\./.test(summary),
        'the summary counts the significant regions');
  check(!summary.includes('converged'),
        'no convergence clause when the profile does not record one');

  // Grouping: the top function is one row; its three lines fold below it.
  const groupRow = `#causal-table tbody.group:has(code.name[title="${kTopFunction}"])`;
  const visibleLines = () => page.$$eval(`${groupRow} tr.line-row`,
    rs => rs.filter(r => !r.hidden && r.offsetParent !== null).length);
  const first = await page.$eval('#causal-table tbody.group tr.group-row',
    tr => Array.from(tr.cells, c => c.textContent));
  check(first[0] === '1' && first[1].includes(kTopFunction) &&
        first[2].startsWith('lib/compress/zstd_double_fast.c:191') &&
        first[2].includes('best of 3 lines'),
        `the first group is the top function at its best line (${first.join(' | ')})`);
  const groups = await page.$$eval('#causal-table tbody.group', bs => bs.length);
  check(groups === 5, `7 lines in 5 function groups (${groups})`);
  check(await visibleLines() === 0, 'its lines start folded');
  await page.click(`${groupRow} button.toggle`);
  check(await visibleLines() === 3, 'a click shows its 3 lines');
  const expanded = await page.$eval(`${groupRow} button.toggle`,
                                    b => b.getAttribute('aria-expanded'));
  check(expanded === 'true', `the toggle says aria-expanded=${expanded}`);
  const ranks = await page.$$eval(`${groupRow} tr.line-row td:first-child`,
                                  tds => tds.map(td => td.textContent));
  check(ranks[0] === '1', `the lines are in rank order (${ranks})`);
  await page.click(`${groupRow} button.toggle`);
  check(await visibleLines() === 0, 'a second click folds them again');

  // Paths: relative to the build root, the whole path on hover.
  const path191 = await page.$eval(
    `${groupRow} tr.group-row a`,
    e => ({text: e.textContent, title: e.getAttribute('title')}));
  check(path191.text === 'lib/compress/zstd_double_fast.c:191' &&
        path191.title === kRoot + 'lib/compress/zstd_double_fast.c',
        `relative path, whole normalised path on hover (${JSON.stringify(path191)})`);
  await page.hover(`${groupRow} tr.group-row a`);
  const hovered = await page.evaluate(() =>
    Array.from(document.querySelectorAll(':hover')).pop()
      .closest('[title]').getAttribute('title'));
  check(hovered === kRoot + 'lib/compress/zstd_double_fast.c',
        `hovering the path shows ${hovered}`);
  const details = await page.$eval('#run-details', e => e.textContent);
  check(details.includes('relative to ' + kRoot),
        'the run details say what paths are relative to');

  // No "//" and no "/../" anywhere a person can read, every fold open.
  await page.click('#expand-all');
  await page.$eval('#run-details', d => { d.open = true; });
  const text = await page.evaluate(() => document.body.innerText);
  check(!text.includes('//'), `no "//" in the rendered text` +
        (text.includes('//') ? ` (…${text.slice(text.indexOf('//') - 60,
                                                 text.indexOf('//') + 40)}…)`
                             : ''));
  check(!text.includes('/../') && !text.includes('/./'),
        'no "/../" or "/./" in the rendered text');
  const allLines = await page.$$eval('#causal-table tr.line-row',
    rs => rs.filter(r => !r.hidden).length);
  check(allLines === 3, `expand all shows every multi-line group (${allLines})`);
  await page.click('#collapse-all');
  check(await visibleLines() === 0, 'collapse all folds them');

  // Long names: the C name takes at most two lines in its cell; the C++
  // name is shortened, with the whole name on hover.
  const cName = await page.$eval(`${groupRow} tr.group-row code.name`, e => {
    const lineHeight = parseFloat(getComputedStyle(e).lineHeight) || 20;
    return {lines: Math.round(e.getBoundingClientRect().height / lineHeight)};
  });
  check(cName.lines <= 2, `${kTopFunction} takes ${cName.lines} line(s)`);
  const cpp = await page.$eval('#causal-table code.name[title^="std::_Hashtable"]',
    e => ({text: e.textContent, title: e.getAttribute('title'),
           height: e.getBoundingClientRect().height}));
  check(cpp.text === 'std::_Hashtable<...>::_M_find_before_node(...) const' &&
        cpp.title.length > 300,
        `the C++ name is shortened to "${cpp.text}", whole on hover`);
  const narrowest = await page.$$eval('#causal-table td', tds =>
    Math.min(...tds.filter(td => td.textContent.length > 20 &&
                                 !td.closest('tr').hidden)
                   .map(td => td.getBoundingClientRect().width)));
  check(narrowest > 120, `no text column is squeezed (narrowest ${narrowest} px)`);

  // A profile that records convergence (the data is not a script, so the
  // page's policy still lets the page run): the summary ends with it.
  const html = fs.readFileSync(report, 'utf8');
  const converged = path.join(outDir, 'layout_converged.html');
  fs.writeFileSync(converged, html.replace('"convergence":null',
    '"convergence":{"converged":true,"detail":"top region unchanged for 30 s"}'));
  check(html.includes('"convergence":null'), 'the data has a convergence slot');
  await page.goto(pathToFileURL(converged).href, {waitUntil: 'load'});
  const last = await page.$eval('#summary li:last-child', e => e.textContent);
  check(last === 'The answer had converged: top region unchanged for 30 s.',
        `convergence is shown when recorded ("${last}")`);

  check(errors.length === 0, `no console or page errors (${errors.join('; ')})`);
  check(requests.length === 0, `no network request (${requests.join(', ')})`);
});
finish();
