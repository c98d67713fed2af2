// html_report_browser_test.mjs: loads an HTML report in headless Chromium
// and checks what a person would see.
//
// Usage: node html_report_browser_test.mjs ANDWEORC PROFILE SOURCE_ROOT OUT_DIR
// Writes OUT_DIR/report.html with `andweorc report -f html`, opens it over
// file:// with every network request refused and recorded, then checks: no
// console error or page error; no request left the file; the first row of
// the ranked table is the fixture's top line for every progress point; a
// plot canvas has drawn pixels; hostile strings (in a function name, a
// source line, the command and a warning) appear as text and injected no
// element or script, and the page's policy refuses inline handlers; sorting by a column reorders the rows; switching the
// progress point redraws; the flame graphs of the stacks and of the traced
// function's slow calls (coloured by the change of share) are drawn. Exit 0 on success, 1 on a failed check, 77 (the
// ctest skip code) when Chromium is not installed.
import {check, finish, requireChromium, withReport} from './browser_page.mjs';

const [andweorc, profile, sourceRoot, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: html_report_browser_test.mjs ANDWEORC PROFILE ' +
                'SOURCE_ROOT OUT_DIR');
  process.exit(2);
}
requireChromium();

await withReport({andweorc, profile, outDir, name: 'report.html',
                  extra: ['--source-root', sourceRoot]},
                 async ({page, errors, requests}) => {
  await page.waitForSelector('#causal-table tbody tr');

  const firstRow = () => page.$eval('#causal-table tbody tr',
    tr => Array.from(tr.cells, c => c.textContent));
  const points = await page.$$eval('#point-select option',
                                   os => os.map(o => o.textContent));
  check(points.length === 2, `two progress points to choose from: ${points}`);
  for (let i = 0; i < points.length; i++) {
    await page.selectOption('#point-select', String(i));
    const row = await firstRow();
    check(row[0] === '1' && row[2] === 'hostile.c:12' &&
          row[1].startsWith('evil_parse</script><img'),
          `point ${i}: first row is rank 1 hostile.c:12 (${row.join(' | ')})`);
  }

  // The throughput point: sort by samples, then by rank again.
  const throughput = points.findIndex(p => p.includes('requests'));
  await page.selectOption('#point-select', String(throughput));
  await page.click('#causal-table th:has-text("Samples") button');
  let row = await firstRow();
  check(row[2] === 'table.c:5' && row[6] === '60.0%',
        `sorted by samples, table.c:5 (60%) is first (${row.join(' | ')})`);
  const sort = await page.$eval('#causal-table th:nth-child(7)',
                                th => th.getAttribute('aria-sort'));
  check(sort === 'descending', `samples column says aria-sort=${sort}`);
  await page.click('#causal-table th:has-text("Samples") button');
  row = await firstRow();
  check(row[2] === 'log.c:3', `ascending, log.c:3 (10%) is first (${row[2]})`);
  await page.click('#causal-table th:has-text("Rank") button');
  row = await firstRow();
  check(row[0] === '1', `sorted by rank again, rank 1 is first (${row[0]})`);

  // A plot was drawn: uPlot's canvas has a size and non-blank pixels.
  const canvas = await page.$eval('#curves .card .plot canvas', c => {
    const ctx = c.getContext('2d');
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) painted++;
    return {width: c.width, height: c.height, painted};
  });
  check(canvas.width > 200 && canvas.height > 100 && canvas.painted > 1000,
        `first plot's canvas ${canvas.width}x${canvas.height}, ` +
        `${canvas.painted} painted pixels`);
  const plots = await page.$$eval('#curves .plot canvas', cs => cs.length);
  check(plots === 3, `one plot per line of the point (${plots})`);

  // Hovering a drawn dot (found by its colour on the canvas) names its
  // experiment.
  await page.$eval('#curves .card .plot', e => e.scrollIntoView());
  const dot = await page.$eval('#curves .card .plot canvas', c => {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const r = c.getBoundingClientRect();
    for (let i = 0; i < px.length; i += 4) {
      if (px[i] === 0x1f && px[i + 1] === 0x4e && px[i + 2] === 0x9c) {
        const x = (i / 4) % c.width;
        const y = Math.floor(i / 4 / c.width);
        return {x: r.left + (x + 3) * r.width / c.width,
                y: r.top + (y + 3) * r.height / c.height};
      }
    }
    return null;
  });
  check(dot !== null, 'the plot shows experiment dots');
  if (dot) {
    await page.mouse.move(dot.x - 30, dot.y - 30);
    await page.mouse.move(dot.x, dot.y);
  }
  const hover = await page.$eval('#curves .card .hover', p => p.textContent);
  check(/Experiment \d+: line sped up \d+% for [\d.]+ s, [\d,]+ visits/.test(hover),
        `hovering a dot names its experiment ("${hover}")`);

  // The flame graphs (src/report/html/flame.js, the live page's too): the
  // profile's stacks, the hostile name as a frame's text; the traced
  // function's slow calls against its others, coloured by the change of
  // share, named on hover.
  const frame = (graph, name) => page.$eval(
      graph, (g, n) => {
        const f = [...g.querySelectorAll('.flame-frame')]
                      .find(e => e.dataset.name === n);
        return f ? {samples: Number(f.dataset.samples), text: f.textContent,
                    depth: Number(f.dataset.depth),
                    change: Number(f.dataset.change)} : null;
      }, name);
  const hostileName = 'evil_parse</script><img src=x onerror="window.__pwned=1">';
  const mainFrame = await frame('#sampling-flame', 'main');
  const evil = await frame('#sampling-flame', hostileName);
  const lookup = await frame('#sampling-flame', 'lookup');
  check(mainFrame && mainFrame.samples === 1000 && mainFrame.depth === 1 &&
            evil && evil.samples === 300 && evil.text === hostileName &&
            evil.depth === 2 && lookup && lookup.samples === 600,
        `the call stacks' flame graph: main 1000 > evil_parse 300, lookup ` +
            `600 (${JSON.stringify([mainFrame, evil, lookup])})`);
  const slowEvil = await frame('#trace-flame-0', hostileName);
  const slowLookup = await frame('#trace-flame-0', 'lookup');
  check(slowEvil && slowEvil.samples === 300 && slowEvil.change > 0.7 &&
            slowLookup && slowLookup.samples === 100 &&
            slowLookup.change < -0.7,
        `the slow calls' graph: evil_parse gains share, lookup loses it (${
            JSON.stringify([slowEvil, slowLookup])})`);
  await page.$eval('#trace-flame-0', e => e.scrollIntoView());
  await page.hover('#trace-flame-0 .flame-frame[data-name="lookup"]');
  const diffTip = await page.$eval('#trace-flame-0 .flame-tip',
                                   e => e.hidden ? '' : e.textContent);
  check(diffTip === 'lookup: 25.0% of the slow calls\' samples (100), ' +
                    '100.0% of the other calls\' (500)',
        `hovering names both shares (${diffTip})`);

  // Hostile strings are text: nothing was injected.
  const injected = await page.evaluate(() => ({
    imgs: document.querySelectorAll('img').length,
    bold: document.querySelectorAll('#warnings b, #warnings i').length,
    scripts: document.scripts.length,
    pwned: window.__pwned === undefined ? null : window.__pwned,
    title: document.title,
  }));
  check(injected.imgs === 0 && injected.bold === 0,
        `no injected element (img: ${injected.imgs}, b/i: ${injected.bold})`);
  // data, uPlot, the shared helpers (dom.js), the flame graph (flame.js)
  // and the report's script
  check(injected.scripts === 5, `only the page's 5 scripts (${injected.scripts})`);
  check(injected.pwned === null, `no injected script ran (${injected.pwned})`);
  check(injected.title.includes('</title><script>window.__pwned=2</script>'),
        `the hostile command is text in the title`);
  const body = await page.evaluate(() => document.body.innerText);
  check(body.includes('evil_parse</script><img src=x onerror="window.__pwned=1">'),
        'the hostile function name is shown as text');
  check(body.includes('"</script><img src=x onerror=window.__pwned=3>"'),
        'the hostile source line is shown as text');
  check(body.includes('A <b>hostile</b> warning & <i>more</i> stays text.'),
        'the hostile warning is shown as text');
  check(body.includes('source not readable here'),
        'a missing source file is said so');

  check(errors.length === 0, `no console or page errors (${errors.join('; ')})`);
  check(requests.length === 0, `no network request (${requests.join(', ')})`);

  // Were markup ever to slip in, the page's policy would not run it.
  const blocked = await page.evaluate(async () => {
    document.body.insertAdjacentHTML('beforeend',
      '<img src="data:," onerror="window.__pwned=4" onload="window.__pwned=4">');
    await new Promise(r => setTimeout(r, 300));
    return window.__pwned === undefined;
  });
  check(blocked, 'an inline event handler is refused by the page\'s policy');
});
finish();
