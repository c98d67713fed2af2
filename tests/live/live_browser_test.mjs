// live_browser_test.mjs: `andweorc run --live` on a real program
// (examples/pipeline), its page in headless Chromium.
//
// Usage: node live_browser_test.mjs ANDWEORC PIPELINE OUT_DIR
// Starts the run, takes the URL the tool prints on standard error, opens it
// with every request but the tool's own origin refused and recorded, then
// checks: the page connects and says it is running; the experiment count
// grows (an update arrived); the ranking's rows and the plots are drawn;
// the sampling profile names the hot function, over the last seconds and,
// switched, over the whole run, and its flame graph has the hot
// function's stacks (checked on the final state: the switch changes the
// span, a click zooms, a hover names); the controls act on the program: a pin on
// a line that is not there is refused with a clear message, a pause stops
// the experiment count, a resume restarts it, a pin makes every experiment
// after its acknowledgement one on the pinned line, and a snapshot writes
// a profile that parses (the time from each click to the page showing the
// program's acknowledgement is printed); a progress point added from
// the page on read_item counts and is removed again (the profile keeps it);
// when the program ends the page shows the final state, whose experiment
// count is the written profile's, and it keeps it (no error, still drawn)
// after the tool has exited. Exit 0 on success, 1 on a failed check, 77
// (the ctest skip code) when Chromium is not installed.
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {check, finish, requireChromium, withBrowser} from
    '../browser/browser_page.mjs';

const [andweorc, program, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: live_browser_test.mjs ANDWEORC PIPELINE OUT_DIR');
  process.exit(2);
}
requireChromium();
fs.mkdirSync(outDir, {recursive: true});
const profile = path.join(outDir, 'live_profile.json');
fs.rmSync(profile, {force: true});

const experimentsShown = page => page.$eval(
    '#summary', e => Number(e.dataset.experiments || -1));

// The browser first: a cold Chromium can take longer to start than the
// run lasts. Only the tool's loopback origin may be reached; its port is
// known once the run has started.
let origin = null;
let child = null;
await withBrowser({allow: u => origin !== null && u.startsWith(origin + '/')},
                  async ({page, errors, requests}) => {
  child = spawn(andweorc, ['run', '-q', '--live', '--max-time', '60s',
                                 '-o', profile, '--', program, 'items',
                                 '1000000000'],
                      {stdio: ['ignore', 'ignore', 'pipe']});
  let stderr = '';
  const exited = new Promise(resolve => child.on('exit', code => resolve(code)));
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', d => {
      stderr += d;
      const m = stderr.match(/live view at (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/);
      if (m) resolve(m[1]);
    });
    exited.then(code => reject(new Error(`andweorc exited (${code}) before ` +
                                         `printing the URL: ${stderr}`)));
  });
  console.log(`live page: ${url}`);
  origin = new URL(url).origin;
  await page.goto(url, {waitUntil: 'load'});
  await page.waitForFunction(
      () => Number(document.getElementById('summary').dataset.experiments ||
                   0) > 0, null, {timeout: 20000});
  const state = await page.$eval('#status', e => e.dataset.state);
  check(state === 'running', `the page says the run is running (${state})`);
  const first = await experimentsShown(page);
  await page.waitForFunction(
      n => Number(document.getElementById('summary').dataset.experiments) > n,
      first, {timeout: 20000});
  check(await experimentsShown(page) > first,
        `an update arrived: ${first} -> ${await experimentsShown(page)} ` +
        'experiments');
  await page.waitForSelector('#ranking tr.rank-row', {timeout: 20000});
  const rows = await page.$$eval('#ranking tr.rank-row', r => r.length);
  check(rows > 0, `the ranking has ${rows} rows`);
  await page.waitForSelector('#samples tr.sample-row', {timeout: 20000});
  const hot = await page.$eval('#samples tr.sample-row td', td => td.textContent);
  check(hot === 'transform_item',
        `the sampling profile's top function is transform_item (${hot})`);
  await page.selectOption('#samples-span', 'total');
  const note = await page.$eval('#samples-note', p => p.textContent);
  check(/in the run/.test(note), `the whole run is shown on request (${note})`);
  const drawn = await page.$$eval('#convergence-plot canvas, #rates-plot canvas',
                                  cs => cs.length);
  check(drawn === 2, `the convergence and rate plots are drawn (${drawn})`);

  // The controls. Each waits for the program's acknowledgement, shown in
  // #control-state's data-* attributes.
  const control = () => page.$eval('#control-state', e => ({...e.dataset}));
  const acked = seq => page.waitForFunction(
      n => Number(document.getElementById('control-state').dataset
                      .appliedSeq) >= n &&
           document.getElementById('control-state').dataset.pending === '0',
      seq, {timeout: 10000});
  let seq = Number((await control()).appliedSeq);
  await page.fill('#ctl-target', 'no_such_file.cc:12');
  await page.click('#ctl-pin');
  await acked(seq += 2);
  const refusal = await page.$eval('#control-message', e => e.textContent);
  check(/not an in-scope line/.test(refusal) && (await control()).pin === '',
        `an unknown line is refused, nothing pinned (${refusal})`);

  await page.click('#ctl-pause');
  await acked(seq += 2);
  // The pause's state can reach #control-state a poll after its
  // acknowledgement (a clean-clone CI run read it before): wait for it.
  const pausedShown = await page.waitForFunction(
      () => document.getElementById('control-state').dataset.paused === '1',
      null, {timeout: 5000}).then(() => true, () => false);
  check(pausedShown, 'the page shows the pause applied');
  // The experiments recorded before the pause reach the page after a poll
  // of the raw files and one of the page (longer on a busy machine: wait
  // for the count the program acknowledged); none may come after that.
  const recordedAtPause = Number((await control()).experimentsAtAck);
  await page.waitForFunction(
      n => Number(document.getElementById('summary').dataset.experiments) >=
           n, recordedAtPause, {timeout: 10000});
  const atPause = await experimentsShown(page);
  await page.waitForTimeout(1000);
  const stillPaused = await experimentsShown(page);
  check(stillPaused === atPause && atPause === recordedAtPause,
        `paused: no experiment for 1 s (${atPause} -> ${stillPaused}; ` +
        `${recordedAtPause} recorded before the pause)`);

  await page.click('#ctl-resume');
  await acked(seq += 2);
  await page.waitForFunction(
      n => Number(document.getElementById('summary').dataset.experiments) > n,
      stillPaused, {timeout: 10000});
  check((await control()).paused === '0' &&
        await experimentsShown(page) > stillPaused,
        `resumed: experiments again (${await experimentsShown(page)})`);

  await page.fill('#ctl-target', 'pipeline.cc:45');
  await page.click('#ctl-pin');
  await acked(seq += 2);
  const pinned = await control();
  check(/pipeline\.cc:45/.test(pinned.pin), `pinned to ${pinned.pin}`);
  const pinnedAfter = Number(pinned.experimentsAtAck);
  await page.waitForFunction(
      n => Number(document.getElementById('summary').dataset.experiments) >=
           n + 3, pinnedAfter, {timeout: 10000});

  await page.click('#ctl-snapshot');
  await page.waitForFunction(
      () => (document.getElementById('control-snapshot').dataset.path ||
             '') !== '',
      null, {timeout: 10000});
  const snapPath = await page.$eval('#control-snapshot', e => e.dataset.path);
  const snap = JSON.parse(fs.readFileSync(snapPath, 'utf8'));
  check(path.dirname(snapPath) === path.dirname(profile) &&
        snap.experiments.length >= pinnedAfter,
        `the snapshot ${snapPath} parses, ${snap.experiments.length} ` +
        'experiments');
  // A progress point on read_item, added from the page while the program
  // runs: it shows in the state's points and counts; then removed.
  await page.fill('#probe-name', 'reads');
  await page.fill('#probe-target', 'read_item');
  await page.click('#probe-add');
  await page.waitForSelector('#probe-list li[data-name="reads"]' +
                             '[data-state="in"]', {timeout: 10000});
  const token = new URL(url).searchParams.get('token');
  const readsTotal = () => page.evaluate(async t => {
    const r = await fetch('state?token=' + encodeURIComponent(t));
    const p = ((await r.json()).points || []).find(q => q.name === 'reads');
    return p ? p.total : -1;
  }, token);
  let reads = -1;
  for (let i = 0; i < 100 && reads <= 0; ++i) {
    await page.waitForTimeout(100);
    reads = await readsTotal();
  }
  check(reads > 0, `the probe added from the page counts (${reads} visits)`);
  await page.click('#probe-list li[data-name="reads"] button');
  await page.waitForSelector('#probe-list li[data-name="reads"]' +
                             '[data-state="removed"]', {timeout: 10000});
  check(true, 'the probe was removed from the page');
  // A latency point on read_item's calls, chosen in the kind selector.
  await page.selectOption('#probe-kind', 'latency');
  await page.fill('#probe-name', 'readlat');
  await page.fill('#probe-target', 'read_item');
  await page.click('#probe-add');
  await page.waitForSelector('#probe-list li[data-name="readlat"]' +
                             '[data-state="in"]', {timeout: 10000});
  await page.click('#probe-list li[data-name="readlat"] button');
  await page.waitForSelector('#probe-list li[data-name="readlat"]' +
                             '[data-state="removed"]', {timeout: 10000});
  check(true, 'a latency probe was added and removed from the page');

  const times = await page.evaluate(() => window.andweorcControlTimes);
  console.log('click -> acknowledgement shown (ms): ' +
              times.map(t => t.click_to_shown_ms.toFixed(0)).join(' ') +
              '; sent -> applied in the program (ms): ' +
              times.map(t => t.program_ms.toFixed(1)).join(' '));

  // The flame graph is checked on the final state below, which no longer
  // changes; for its two spans to differ the run must outlast the window.
  await page.waitForFunction(
      () => Number(document.getElementById('summary').dataset.time || 0) > 12,
      null, {timeout: 30000});

  // Done: end the run now rather than after a fixed time (a loaded machine
  // needs longer for the steps above; an idle one would wait). The tool
  // forwards the SIGINT to the program, as Ctrl-C, and writes the profile.
  child.kill('SIGINT');
  const code = await exited;
  check(code === 128 + 2,
        `andweorc run exited with the program's SIGINT status, 130 (${code}): ` +
        stderr.trim());
  // The tool waits (up to 3 s) for the page to fetch the final state
  // before it exits, so it is there now or on the next poll already made.
  await page.waitForFunction(
      () => document.getElementById('status').dataset.state === 'finished',
      null, {timeout: 10000});
  const written = JSON.parse(fs.readFileSync(profile, 'utf8'));
  const shown = await experimentsShown(page);
  check(shown === written.experiments.length,
        `the final state shows the profile's ${written.experiments.length} ` +
        `experiments (${shown})`);
  // One process: its experiments are in the order it ran them.
  const readlat = (written.points || []).find(q => q.name === 'readlat');
  // Calls in flight at the removal began and never end: at most one per
  // thread of the program (4).
  check(readlat && readlat.ends > 0 && readlat.begins >= readlat.ends &&
            readlat.begins - readlat.ends <= 4,
        'the profile keeps the page\'s latency probe\'s counts (' +
            (readlat ? `${readlat.begins} begins, ${readlat.ends} ends` : 'none') +
            ')');
  const readsPoint = (written.points || []).find(q => q.name === 'reads');
  check(readsPoint && readsPoint.visits > 0,
        `the profile keeps the page's probe's count (${
            readsPoint ? readsPoint.visits : 'none'})`);
  const afterPin = written.experiments.slice(pinnedAfter);
  const offPin = afterPin.filter(e => e.line !== 45 ||
                                      !e.file.endsWith('pipeline.cc'));
  check(afterPin.length >= 3 && offPin.length === 0,
        `all ${afterPin.length} experiments after the pin are on ` +
        `pipeline.cc:45 (${offPin.length} are not)`);
  // The tool is gone: the page keeps its state and its plots.
  await page.waitForTimeout(1500);
  const after = await page.$eval('#status', e => e.dataset.state);
  const rowsAfter = await page.$$eval('#ranking tr.rank-row', r => r.length);
  const canvases = await page.$$eval('canvas', cs => cs.length);
  check(after === 'finished' && rowsAfter > 0 && canvases >= 2,
        `after the tool exited: ${after}, ${rowsAfter} rows, ${canvases} ` +
        'plots');

  // The flame graph of the final state: the hot function's frames under
  // its callers, the switch between the last 10 s and the whole run, a
  // click zooming in and the "all" bar out, a hover naming the function.
  const frames = name => page.$$eval(
      `#flame .flame-frame[data-name="${name}"]`,
      fs => fs.map(f => ({samples: Number(f.dataset.samples),
                          depth: Number(f.dataset.depth),
                          width: f.style.width})));
  const sum = fs => fs.reduce((a, f) => a + f.samples, 0);
  await page.selectOption('#samples-span', 'recent');
  const recentSpan = await page.$eval('#flame', e => ({...e.dataset}));
  const hotFrames = await frames('transform_item');
  const readFrames = await frames('read_item');
  check(recentSpan.span === 'recent' && Number(recentSpan.samples) > 0 &&
            hotFrames.length > 0 && sum(hotFrames) > 2 * sum(readFrames) &&
            Math.max(...hotFrames.map(f => f.depth)) >= 3,
        `the flame graph of the last 10 s has transform_item (${
            sum(hotFrames)} of ${recentSpan.samples} samples, depth ${
            Math.max(...hotFrames.map(f => f.depth))}) over read_item (${
            sum(readFrames)})`);
  const allRecent = await page.$eval('#flame .flame-all',
                                     e => Number(e.dataset.samples));
  await page.selectOption('#samples-span', 'total');
  const totalSpan = await page.$eval('#flame', e => ({...e.dataset}));
  const allTotal = await page.$eval('#flame .flame-all',
                                    e => Number(e.dataset.samples));
  check(totalSpan.span === 'total' && allRecent === Number(recentSpan.samples) &&
            allTotal === Number(totalSpan.samples) && allTotal > allRecent &&
            sum(await frames('transform_item')) > sum(hotFrames),
        `the switch shows the whole run: ${allTotal} samples (last 10 s: ` +
            `${allRecent})`);
  await page.hover('#flame .flame-frame[data-name="transform_item"]');
  const tip = await page.$eval('#flame .flame-tip',
                               e => e.hidden ? '' : e.textContent);
  check(/^transform_item: \d+ samples, [\d.]+% of all/.test(tip),
        `hovering names the function, its samples and share (${tip})`);
  await page.click('#flame .flame-frame[data-name="transform_item"]');
  const zoomed = await frames('transform_item');
  const others = (await frames('read_item')).length +
                 (await frames('write_item')).length;
  check(zoomed.length === 1 && zoomed[0].width === '100%' && others === 0 &&
            await page.$eval('#flame .flame', e => e.dataset.focus) ===
                'transform_item',
        `a click zooms to transform_item (width ${
            zoomed.map(f => f.width)}, ${others} other stages drawn)`);
  await page.click('#flame .flame-all');
  check((await frames('read_item')).length > 0 &&
            await page.$eval('#flame .flame', e => e.dataset.focus) === '',
        'the "all" bar zooms back out');
  check(errors.length === 0, `no console or page errors: ${errors}`);
  check(requests.length === 0, `no request left the tool's origin: ${requests}`);
});
child.kill();
finish();
