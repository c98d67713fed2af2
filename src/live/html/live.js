// live.js: the page of `andweorc run --live`. Polls the tool's /state
// (same origin, the page's token) twice a second and redraws: the status,
// the convergence signal and progress-point rates over time, and the
// causal ranking with each line's predicted curve and interval, and the
// sampling profile (last N seconds or the whole run): a flame graph of the
// call stacks (src/report/html/flame.js) and the top functions; and the
// controls
// (pause/resume experiments, pin a line or function, write a snapshot, add
// or remove a progress point probe),
// sent as POST /control with the token. When the
// tool exits the page keeps the last state it got (the final one, normally)
// and says so. Text goes into the page as text nodes only: file and
// function names come from the profiled program.
(function () {
  'use strict';
  const root = document.getElementById('live');
  const token = new URLSearchParams(location.search).get('token') || '';
  const kPollMs = 500;
  const kTopCurves = 6;  // lines whose curve is drawn, per point

  // el, num and pct: src/report/html/dom.js, loaded before this script.
  const {el, num, pct} = window.andweorcDom;
  function where(l) {
    const file = l.file_display || l.file || '';
    return l.granularity === 'function' ? (l.function || file)
                                        : file + ':' + l.line;
  }

  // The fixed layout; update() fills it.
  const status = el('p', {id: 'status', 'data-state': 'connecting'},
                    'Connecting…');
  const summary = el('p', {id: 'summary'});
  const convText = el('p', {id: 'convergence'});
  const convPlot = el('div', {id: 'convergence-plot', class: 'plot'});
  const ratesPlot = el('div', {id: 'rates-plot', class: 'plot'});
  const ranking = el('div', {id: 'ranking'});
  // The sampling profile: the last N seconds or the whole run.
  const spanSelect = el('select', {id: 'samples-span'},
                        el('option', {value: 'recent'}, 'last seconds'),
                        el('option', {value: 'total'}, 'whole run'));
  const samplesNote = el('p', {id: 'samples-note', class: 'note'});
  const flameNote = el('p', {id: 'flame-note', class: 'note'});
  const flameHolder = el('div', {id: 'flame'});
  const flame = window.andweorcFlame.create(flameHolder, {unit: 'samples'});
  const samplesTable = el('div', {id: 'samples'});
  // The controls (docs/live.md "Controls"). The state line's data-*
  // attributes hold what the program last acknowledged.
  const button = (id, text) => el('button', {id: id, type: 'button'}, text);
  const ctlPause = button('ctl-pause', 'Pause experiments');
  const ctlResume = button('ctl-resume', 'Resume');
  const ctlTarget = el('input', {id: 'ctl-target', type: 'text', size: '28',
                                 placeholder: 'FILE:LINE or function'});
  const ctlPin = button('ctl-pin', 'Pin experiments');
  const ctlUnpin = button('ctl-unpin', 'Unpin');
  const ctlSnapshot = button('ctl-snapshot', 'Write a snapshot');
  // The sample period: a whole multiple of the run's (docs/live.md).
  const ctlPeriodValue = el('input', {id: 'ctl-period-value', type: 'text',
                                      size: '8', placeholder: 'e.g. 4ms'});
  const ctlPeriod = button('ctl-period', 'Set sample period');
  const ctlState = el('p', {id: 'control-state', 'data-paused': '0',
                            'data-pin': '', 'data-applied-seq': '0'},
                      'No control sent yet.');
  const ctlMessage = el('p', {id: 'control-message', class: 'note'});
  const ctlSnapshotNote = el('p', {id: 'control-snapshot', class: 'note',
                                   'data-path': ''});
  // Probes from the page (docs/live.md "Probes from the page"): a progress
  // point on a function or FILE:LINE, a latency point (a function's calls,
  // or FILE:LINE,FILE:LINE) or a trace of a function's calls, patched into
  // the running program.
  const prbKind = el('select', {id: 'probe-kind'},
                     el('option', {value: 'progress'}, 'progress point'),
                     el('option', {value: 'latency'}, 'latency point'),
                     el('option', {value: 'trace'}, 'trace calls'));
  const prbName = el('input', {id: 'probe-name', type: 'text', size: '12',
                               placeholder: 'point name'});
  const prbTarget = el('input', {id: 'probe-target', type: 'text',
                                 size: '28',
                                 placeholder: 'function or FILE:LINE'});
  const prbAdd = button('probe-add', 'Add probe');
  prbKind.addEventListener('change', () => {
    prbTarget.placeholder = {progress: 'function or FILE:LINE',
                             latency: 'function or FILE:LINE,FILE:LINE',
                             trace: 'function'}[prbKind.value];
  });
  const prbList = el('ul', {id: 'probe-list'});
  root.append(
      status, summary,
      el('section', {id: 'controls'}, el('h2', null, 'Controls'),
         el('div', null, ctlPause, ' ', ctlResume, ' ', ctlTarget, ' ',
            ctlPin, ' ', ctlUnpin, ' ', ctlSnapshot),
         el('div', null, ctlPeriodValue, ' ', ctlPeriod),
         ctlState, ctlMessage, ctlSnapshotNote,
         el('div', null, prbKind, ' ', prbName, ' = ', prbTarget, ' ', prbAdd),
         prbList),
      el('section', null, el('h2', null, 'Convergence'), convText, convPlot),
      el('section', null, el('h2', null, 'Progress-point rates'), ratesPlot),
      el('section', null, el('h2', null, 'Causal ranking'), ranking),
      el('section', null, el('h2', null, 'Where the time goes (samples)'),
         el('label', null, 'Span: ', spanSelect), samplesNote,
         el('h3', null, 'Call stacks'), flameNote, flameHolder,
         el('h3', null, 'Top functions'), samplesTable));
  spanSelect.addEventListener('change', () => { if (last) drawSamples(last); });

  const plots = {};  // id -> uPlot, destroyed before each redraw
  function plot(id, holder, opts, data) {
    if (plots[id]) plots[id].destroy();
    opts.width = Math.max(300, holder.clientWidth || 600);
    plots[id] = new uPlot(opts, data, holder);
  }

  function drawConvergence(h) {
    const t = h.map(e => e.time_s);
    const impact = h.map(e => e.leader ? e.impact : null);
    const low = h.map(e => e.leader ? e.ci_low : null);
    const high = h.map(e => e.leader ? e.ci_high : null);
    const inPlay = h.map(e => e.in_play);
    plot('convergence', convPlot, {
      height: 220,
      scales: {x: {time: false}, n: {}},
      series: [
        {label: 'time (s)'},
        {label: 'leader impact', stroke: '#d9480f', width: 2},
        {label: 'low', stroke: 'rgba(217,72,15,0.4)', dash: [4, 4]},
        {label: 'high', stroke: 'rgba(217,72,15,0.4)', dash: [4, 4]},
        {label: 'regions in play', stroke: '#1c7ed6', scale: 'n'},
      ],
      bands: [{series: [3, 2], fill: 'rgba(217,72,15,0.12)'}],
      axes: [{label: 'seconds'}, {label: 'impact'},
             {scale: 'n', side: 1, label: 'in play', grid: {show: false}}],
    }, [t, impact, low, high, inPlay]);
  }

  function drawRates(points) {
    if (!points.length) {
      ratesPlot.replaceChildren(
          el('p', {class: 'note'}, 'No progress point reached yet.'));
      if (plots.rates) { plots.rates.destroy(); delete plots.rates; }
      return;
    }
    // One time axis: the ticks are the same for every point.
    const t = points[0].rates.map(r => r[0]);
    const colors = ['#1c7ed6', '#2f9e44', '#ae3ec9', '#f08c00', '#e03131'];
    const series = [{label: 'time (s)'}];
    const data = [t];
    points.forEach((p, i) => {
      series.push({label: p.name + (p.kind === 'latency' ? ' (arrivals)' : ''),
                   stroke: colors[i % colors.length], width: 2});
      const byTime = new Map(p.rates.map(r => [r[0], r[1]]));
      data.push(t.map(x => byTime.has(x) ? byTime.get(x) : null));
    });
    if (!plots.rates) ratesPlot.replaceChildren();
    plot('rates', ratesPlot, {
      height: 220,
      scales: {x: {time: false}},
      series: series,
      axes: [{label: 'seconds'}, {label: 'per second'}],
    }, data);
  }

  function curve(id, holder, l) {
    // The fitted line passes through 0 at 0% (analysis.h: predict()).
    const p = [{line_speedup: 0, value: 0, low: 0, high: 0},
               ...(l.predictions || [])];
    const xMax = p[p.length - 1].line_speedup || 1;
    plot(id, holder, {
      height: 160,
      legend: {show: false},
      scales: {x: {time: false, range: [0, xMax]}},
      series: [
        {label: 'line speed-up'},
        {label: 'predicted', stroke: '#d9480f', width: 2},
        {label: 'low', stroke: 'rgba(217,72,15,0.3)'},
        {label: 'high', stroke: 'rgba(217,72,15,0.3)'},
      ],
      bands: [{series: [3, 2], fill: 'rgba(217,72,15,0.12)'}],
      axes: [{label: 'line speed-up', values: (u, v) => v.map(x => pct(x, 0))},
             {label: 'program', size: 60,
              values: (u, v) => v.map(x => pct(x, 0))}],
    }, [p.map(e => e.line_speedup), p.map(e => e.value),
        p.map(e => e.low), p.map(e => e.high)]);
  }

  function drawRanking(r) {
    for (const id of Object.keys(plots)) {
      if (id.startsWith('curve-')) { plots[id].destroy(); delete plots[id]; }
    }
    ranking.replaceChildren();
    const points = (r && r.points) || [];
    if (!points.some(p => p.lines.length)) {
      ranking.appendChild(el('p', {class: 'note'}, 'No experiment yet.'));
      return;
    }
    const toDraw = [];
    points.forEach((p, pi) => {
      const table = el('table', {class: 'ranking'},
          el('thead', null, el('tr', null,
              el('th', null, '#'), el('th', null, 'line'),
              el('th', null, 'impact'), el('th', null, 'interval'),
              el('th', null, 'experiments'), el('th', null, 'verdict'))));
      const body = el('tbody');
      for (const l of p.lines) {
        body.appendChild(el('tr', {class: 'rank-row ' + l.verdict},
            el('td', null, String(l.rank)), el('td', {title: l.file || ''},
                                                where(l)),
            el('td', null, num(l.impact, 3)),
            el('td', null, '[' + num(l.ci_low, 3) + ', ' +
                           num(l.ci_high, 3) + ']'),
            el('td', null, String(l.experiments)),
            el('td', null, l.verdict_text)));
      }
      table.appendChild(body);
      const curves = el('div', {class: 'curves'});
      ranking.append(el('h3', null, p.name + ' (' + p.kind + ', ' +
                                    p.experiments + ' experiments)'),
                     table, curves);
      p.lines.filter(l => l.impact !== null).slice(0, kTopCurves)
          .forEach((l, li) => {
            const holder = el('div', {class: 'curve'});
            curves.appendChild(el('figure', null, holder,
                el('figcaption', null, where(l) + ': ' + num(l.impact, 3) +
                   ' [' + num(l.ci_low, 3) + ', ' + num(l.ci_high, 3) + ']')));
            toDraw.push(['curve-' + pi + '-' + li, holder, l]);
          });
    });
    for (const [id, holder, l] of toDraw) curve(id, holder, l);
  }

  function drawSamples(s) {
    const p = s.samples;
    if (!p) return;
    const recent = spanSelect.value === 'recent';
    const rows = recent ? p.recent : p.total;
    const n = recent ? p.recent_samples : p.total_samples;
    spanSelect.options[0].textContent = 'last ' + num(p.window_s, 0) + ' s';
    samplesNote.textContent = n + ' samples ' +
        (recent ? 'in the last ' + num(p.window_s, 0) + ' s' : 'in the run') +
        '; the sampled instruction\'s function, all code (not only the ' +
        'profiled scope).';
    const body = el('tbody');
    for (const r of rows) {
      body.appendChild(el('tr', {class: 'sample-row'},
          el('td', null, r.function), el('td', null, String(r.samples)),
          el('td', null, pct(r.share, 1))));
    }
    samplesTable.replaceChildren(el('table', {class: 'ranking'},
        el('thead', null, el('tr', null, el('th', null, 'function'),
                             el('th', null, 'samples'),
                             el('th', null, 'share'))), body));
    drawFlame(s.flame, recent);
  }

  // The flame graph of the same span; its zoom survives the redraws.
  function drawFlame(f, recent) {
    if (!f) return;
    const g = recent ? f.recent : f.total;
    flameHolder.dataset.span = recent ? 'recent' : 'total';
    flameHolder.dataset.samples = String(g.samples);
    let text = 'Each frame\'s width is its samples, its callees\' included; ' +
        'the outermost frames on top, inlined functions as frames of their ' +
        'own. Click a frame to zoom in, the bar above it to zoom out.';
    if (g.pruned_nodes > 0) {
      text += ' ' + g.pruned_nodes + ' frames under ' +
          pct(f.min_share, 1) + ' of the span (' + g.pruned_samples +
          ' samples) are not drawn.';
    }
    if (g.cut > 0) {
      text += ' ' + g.cut + ' samples\' deeper frames were not kept (the ' +
          'live view keeps at most ' + f.node_limit + ' frames per span): ' +
          'they show as "[deeper frames not kept]".';
    }
    flameNote.textContent = g.samples > 0 ? text : 'No samples in this span.';
    flame.draw(g);
  }

  // Sent commands: seq -> when clicked (performance.now()), until the
  // program acknowledges them; then the time from click to acknowledgement
  // is shown (and kept in window.andweorcControlTimes for the tests).
  const clicked = new Map();
  window.andweorcControlTimes = [];
  let controlsOff = false;
  let fastPoll = null;

  function drawControls(c) {
    if (!c) return;
    const a = c.applied;
    for (const b of [ctlPause, ctlResume, ctlPin, ctlUnpin, prbAdd,
                     ctlPeriod]) {
      b.disabled = controlsOff || !c.available;
    }
    drawProbes(c);
    ctlSnapshot.disabled = controlsOff || !c.snapshots;
    if (!c.available) {
      ctlState.textContent = 'Pause and pin need experiments: this run has ' +
          'none (or runs them end to end).';
    } else if (a) {
      ctlState.textContent = (a.paused ? 'Experiments paused' :
                                         'Experiments running') +
          (a.pin ? ', pinned to ' + a.pin : ', not pinned') +
          (a.period_multiple > 1 ? ', sampling every ' + a.period_multiple +
                                       ' × the run\'s period' : '') +
          ' (applied by process ' + a.pid + ' after ' + a.experiments +
          ' experiments)' + (c.pending ? '; sending…' : '.');
    } else {
      ctlState.textContent = c.pending ? 'Sending…' : 'No control sent yet.';
    }
    ctlState.dataset.paused = a && a.paused ? '1' : '0';
    ctlState.dataset.pin = (a && a.pin) || '';
    ctlState.dataset.periodMultiple = a ? String(a.period_multiple || 1) : '1';
    ctlState.dataset.appliedSeq = a ? String(a.seq) : '0';
    ctlState.dataset.experimentsAtAck = a ? String(a.experiments) : '';
    ctlState.dataset.pending = c.pending ? '1' : '0';
    if (a && clicked.has(a.seq)) {
      const ms = performance.now() - clicked.get(a.seq);
      window.andweorcControlTimes.push({seq: a.seq, click_to_shown_ms: ms,
                                        program_ms: a.latency_ms});
      for (const k of [...clicked.keys()]) if (k <= a.seq) clicked.delete(k);
      if (!c.error) {
        ctlMessage.textContent = 'Applied ' + num(ms, 0) +
            ' ms after the click (the program took it ' +
            num(a.latency_ms, 0) + ' ms after it was sent).';
        ctlMessage.dataset.error = '';
      }
    }
    if (c.error) {
      ctlMessage.textContent = c.error;
      ctlMessage.dataset.error = c.error;
    }
    ctlSnapshotNote.textContent = c.snapshot
        ? 'Last snapshot: ' + c.snapshot
        : (c.snapshot_error ? 'Snapshot failed: ' + c.snapshot_error : '');
    ctlSnapshotNote.dataset.path = c.snapshot || '';
    if (!c.pending && !c.probe_pending && fastPoll) {
      clearInterval(fastPoll);
      fastPoll = null;
    }
  }

  // One row per probe added from the page: its state ("adding", "in",
  // "refused", "removing", "removed") in data-state, a Remove button while
  // it is in.
  function drawProbes(c) {
    const rows = [];
    for (const p of c.probes || []) {
      const text = (p.kind && p.kind !== 'progress' ? p.kind + ' ' : '') +
          p.name + ' = ' + p.target + ': ' +
          ({adding: 'adding…', in: 'in (' + p.sites + ' address' +
                (p.sites === 1 ? '' : 'es') + ', process ' + p.pid + ')',
            refused: 'refused: ' + p.error, removing: 'removing…',
            removed: 'removed (its count so far stays)'}[p.state] ||
           p.state);
      const li = el('li', {'data-name': p.name, 'data-state': p.state}, text);
      if (p.state === 'in') {
        const b = button('probe-remove-' + p.id, 'Remove');
        b.disabled = controlsOff;
        b.addEventListener('click', () => sendProbe('unprobe', p.name));
        li.append(' ', b);
      }
      rows.push(li);
    }
    prbList.replaceChildren(...rows);
    if (c.probe_pending && !fastPoll) fastPoll = setInterval(fetchControls, 100);
  }

  let fetchingControls = false;  // one request at a time
  async function fetchControls() {
    if (fetchingControls) return;
    fetchingControls = true;
    try {
      const r = await fetch('control?token=' + encodeURIComponent(token),
                            {cache: 'no-store'});
      if (r.ok) drawControls(await r.json());
    } catch (e) { /* the state poll reports a silent tool */ }
    fetchingControls = false;
  }

  async function send(action, target) {
    const t0 = performance.now();
    try {
      const r = await fetch('control?token=' + encodeURIComponent(token), {
        method: 'POST', cache: 'no-store',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({action: action, target: target || ''})});
      const j = await r.json();
      if (!j.ok) {
        ctlMessage.textContent = j.error || ('HTTP ' + r.status);
        ctlMessage.dataset.error = ctlMessage.textContent;
        return;
      }
      ctlMessage.dataset.error = '';
      if (action === 'snapshot') {
        ctlMessage.textContent = 'Snapshot written: ' + j.path;
      } else {
        clicked.set(j.seq, t0);
        ctlMessage.textContent = 'Sent; waiting for the program…';
        // Until the program acknowledges: every 100 ms, not the page's 0.5 s.
        if (!fastPoll) fastPoll = setInterval(fetchControls, 100);
      }
      fetchControls();
    } catch (e) {
      ctlMessage.textContent = 'Cannot reach the tool: ' + e.message;
      ctlMessage.dataset.error = ctlMessage.textContent;
    }
  }
  async function sendProbe(action, name, target, kind) {
    try {
      const r = await fetch('control?token=' + encodeURIComponent(token), {
        method: 'POST', cache: 'no-store',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({action: action, kind: kind || 'progress',
                              name: name, target: target || ''})});
      const j = await r.json();
      ctlMessage.textContent = j.ok ? 'Sent; waiting for the program…'
                                    : (j.error || ('HTTP ' + r.status));
      ctlMessage.dataset.error = j.ok ? '' : ctlMessage.textContent;
      if (j.ok && !fastPoll) fastPoll = setInterval(fetchControls, 100);
      fetchControls();
    } catch (e) {
      ctlMessage.textContent = 'Cannot reach the tool: ' + e.message;
      ctlMessage.dataset.error = ctlMessage.textContent;
    }
  }
  prbAdd.addEventListener('click', () => sendProbe(
      'probe', prbName.value.trim(), prbTarget.value.trim(), prbKind.value));
  ctlPause.addEventListener('click', () => send('pause'));
  ctlResume.addEventListener('click', () => send('resume'));
  ctlPin.addEventListener('click', () => send('pin', ctlTarget.value.trim()));
  ctlPeriod.addEventListener('click',
                             () => send('period', ctlPeriodValue.value.trim()));
  ctlUnpin.addEventListener('click', () => send('unpin'));
  ctlSnapshot.addEventListener('click', () => send('snapshot'));

  let last = null;       // the last state received
  let lastTime = -1;     // its time_s: redraw only when it changed
  let failures = 0;

  function update(s) {
    last = s;
    const finished = s.kind === 'final';
    status.dataset.state = finished ? 'finished' : 'running';
    status.textContent = finished
        ? 'The program has finished: this is the final state.'
        : 'Running.';
    summary.textContent = num(s.time_s, 1) + ' s, ' + s.experiments +
        ' experiment' + (s.experiments === 1 ? '' : 's') + ' (' +
        num(s.experiments_per_s, 1) + '/s).';
    summary.dataset.experiments = s.experiments;
    summary.dataset.time = s.time_s;
    const c = s.convergence;
    convText.textContent = c ? (c.text || ('State: ' + c.state))
                             : 'No experiment has finished yet.';
    const h = (s.history && s.history.convergence) || [];
    drawConvergence(h);
    drawRates((s.history && s.history.points) || []);
    drawRanking(s.ranking);
    drawSamples(s);
  }

  async function poll() {
    try {
      const r = await fetch('state?token=' + encodeURIComponent(token),
                            {cache: 'no-store'});
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const s = await r.json();
      failures = 0;
      if (s.kind === 'final') controlsOff = true;
      drawControls(s.controls);
      if (s.time_s !== undefined && (s.time_s !== lastTime ||
                                     (last && last.kind !== s.kind))) {
        lastTime = s.time_s;
        update(s);
      }
      if (s.kind === 'final') return;  // nothing will change any more
    } catch (e) {
      ++failures;
      // The tool exits after the program: keep what we have, say so.
      status.dataset.state = last && last.kind === 'final' ? 'finished'
                                                           : 'disconnected';
      status.textContent = last
          ? 'The tool is not answering (the run has ended?); showing the ' +
            'last state, from ' + num(last.time_s, 1) + ' s.'
          : 'Cannot reach the tool: ' + e.message;
      if (failures > 20) return;  // ten seconds of silence: stop asking
    }
    setTimeout(poll, kPollMs);
  }
  poll();
})();
