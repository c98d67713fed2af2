// ui_latency.mjs: how long a finished experiment takes to appear in the
// `andweorc run --live` page (the target: within 2 s).
//
// Usage: node bench/live/ui_latency.mjs ANDWEORC PROGRAM [SECONDS] [ARGS...]
//   e.g. node bench/live/ui_latency.mjs build/bin/andweorc \
//          build/bin/pipeline 20 items 1000000000
// Runs the program under `andweorc run --live --keep-raw`, opens the page in
// headless Chromium (tests/browser/browser_page.mjs) and records, in the
// page, the wall-clock time at which each experiment count is first shown.
// Afterwards it reads each experiment's end from the raw files (its
// CLOCK_MONOTONIC end mapped to wall-clock with the process record's pair of
// start times) and prints, for the experiments shown while the program ran,
// the delay between an experiment's end and the page showing it: median,
// 95th percentile and maximum, in milliseconds. Both clocks are this
// machine's CLOCK_REALTIME (the browser's Date.now() and the runtime's).
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {withBrowser} from '../../tests/browser/browser_page.mjs';

const [andweorc, program, seconds = '20', ...args] = process.argv.slice(2);
if (!program) {
  console.error('usage: ui_latency.mjs ANDWEORC PROGRAM [SECONDS] [ARGS...]');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'andweorc-latency-'));
const raw = path.join(dir, 'raw');

// Experiment ends (ns since the epoch) from the runtime's raw files
// (src/runtime/raw_format.h).
function experimentEnds(rawDir) {
  const ends = [];
  for (const name of fs.readdirSync(rawDir)) {
    if (!name.endsWith('.awr')) continue;
    const b = fs.readFileSync(path.join(rawDir, name));
    let pos = b.readUInt32LE(12);  // FileHeader.header_size
    let mono0 = 0n, real0 = 0n;
    while (pos + 8 <= b.length) {
      const type = b.readUInt32LE(pos), size = b.readUInt32LE(pos + 4);
      const body = pos + 8;
      if (body + size > b.length) break;
      if (type === 1) {  // kProcess
        mono0 = b.readBigUInt64LE(body + 8);
        real0 = b.readBigUInt64LE(body + 16);
      } else if (type === 9) {  // kExperiment: start_ns, duration_ns, ...
        const end = b.readBigUInt64LE(body) + b.readBigUInt64LE(body + 8);
        ends.push(Number(real0 + (end - mono0)) / 1e6);  // ms
      }
      pos = body + Math.ceil(size / 8) * 8;
    }
  }
  return ends.sort((a, b) => a - b);
}

let origin = null;
let shown = [];
await withBrowser({allow: u => origin !== null && u.startsWith(origin + '/')},
                  async ({page}) => {
  const child = spawn(andweorc, ['run', '-q', '--live', '--keep-raw', raw,
                                 '--max-time', seconds + 's',
                                 '-o', path.join(dir, 'profile.json'), '--',
                                 program, ...args],
                      {stdio: ['ignore', 'ignore', 'pipe']});
  const exited = new Promise(resolve => child.on('exit', resolve));
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', d => {
      stderr += d;
      const m = stderr.match(/live view at (\S+)/);
      if (m) resolve(m[1]);
    });
    exited.then(() => reject(new Error(stderr)));
  });
  origin = new URL(url).origin;
  await page.goto(url);
  await page.evaluate(() => {
    window.shown = [];
    const s = document.getElementById('summary');
    new MutationObserver(() => {
      if (document.getElementById('status').dataset.state !== 'running') return;
      window.shown.push([Date.now(), Number(s.dataset.experiments)]);
    }).observe(s, {attributes: true, childList: true, subtree: true});
  });
  await exited;
  shown = await page.evaluate(() => window.shown);
});

const ends = experimentEnds(raw);
const delays = [];
for (let k = 1; k <= ends.length; ++k) {
  const first = shown.find(([, n]) => n >= k);
  if (!first) break;  // shown only in the final state, after the program
  delays.push(first[0] - ends[k - 1]);
}
fs.rmSync(dir, {recursive: true, force: true});
if (!delays.length) {
  console.log(`no experiment was shown while the program ran ` +
              `(${ends.length} experiments)`);
  process.exit(1);
}
const sorted = [...delays].sort((a, b) => a - b);
const q = p => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
console.log(`${delays.length} of ${ends.length} experiments shown while ` +
            `running; end -> page: median ${q(0.5).toFixed(0)} ms, p95 ` +
            `${q(0.95).toFixed(0)} ms, max ${sorted.at(-1).toFixed(0)} ms`);
