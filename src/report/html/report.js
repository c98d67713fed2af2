// report.js: draws andweorc's HTML report from the JSON data embedded in the
// page (see src/report/html_data.h for its keys), with uPlot for the plots.
//
// Every string from the profile or a source file reaches the page through
// textContent or setAttribute, never innerHTML: a source line holding
// markup is shown as text. (This file sits inside a script element: it must
// not contain a closing script tag or a comment opener, even in comments;
// the build checks.)
(function () {
  'use strict';

  const data = JSON.parse(
    document.getElementById('andweorc-data').textContent);
  const root = document.getElementById('report');
  const plots = [];  // live uPlot instances of the shown progress point

  // ---- small helpers ------------------------------------------------------

  // el, num and pct: src/report/html/dom.js, loaded before this script.
  const {el, num, pct} = window.andweorcDom;

  function signedPct(v, digits) {
    if (v === null || v === undefined) return '–';
    const s = num(v * 100, digits);
    return (s.startsWith('-') ? '' : '+') + s + '%';
  }

  function count(v) {
    return v === null || v === undefined ? '–' : v.toLocaleString('en-US');
  }

  function seconds(s) {
    if (s === null || s === undefined) return '–';
    if (s < 60) return s.toFixed(2) + ' s';
    return Math.floor(s / 60) + ' min ' + (s % 60).toFixed(1) + ' s';
  }

  // Paths as the report shows them: o.file_display is normalised and
  // relative to a source root (src/report/source_paths.h); the whole
  // normalised path is the tooltip.
  function shortFile(o) {
    return o.file_display ? o.file_display : '(unknown file)';
  }

  function where(o) {
    return shortFile(o) + ':' + (o.line > 0 ? o.line : '?');
  }

  function functionName(f) {
    return f ? f : '(unknown function)';
  }

  // Text with a line-break opportunity (wbr) where a person would break
  // it: a C/C++ name after "_", "::" and "," and before "<" and "("; a path
  // only after "/". A long name then wraps into readable pieces instead of
  // a few characters per line, and a path never breaks inside a file name.
  const kNameBreaks = /(::|[_,]|(?=[<(]))/g;
  const kPathBreaks = /\//g;
  function breakable(text, breaks) {
    const span = el('span');
    const re = new RegExp((breaks || kNameBreaks).source, 'g');
    let last = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      const end = m.index + m[0].length;
      if (m[0].length === 0) re.lastIndex++;  // a lookahead matches nothing
      if (end === last || end >= text.length) continue;
      span.appendChild(document.createTextNode(text.slice(last, end)));
      span.appendChild(el('wbr'));
      last = end;
    }
    span.appendChild(document.createTextNode(text.slice(last)));
    return span;
  }

  // A function name: shortened (display.h short_function_name) when it is
  // very long, breakable, the full name on hover.
  function nameNode(o) {
    const full = functionName(o.function);
    const shown = o.function ? o.function_short : full;
    return el('code', {class: 'name', title: full}, breakable(shown));
  }

  // "file:line", breakable, the whole path on hover.
  function pathNode(o, withLine) {
    const text = withLine ? where(o) : shortFile(o);
    return el('span', {class: 'path', title: o.file_path || null},
              breakable(text, kPathBreaks));
  }

  // ---- sortable table -----------------------------------------------------

  // columns: [{label, title, value(row) -> sort key, cell(row) -> node or
  // string, numeric, descending (first click sorts high to low)}]. Rows are
  // first sorted by the first column, in its first-click direction.
  function sortableTable(id, columns, rows, onRow) {
    const table = el('table', {id: id, class: 'sortable'});
    const head = el('tr');
    const body = el('tbody');
    const sort = sortHeader(head, columns, !columns[0].descending, render);

    function render() {
      const sorted = rows.slice().sort(sort.compare);
      body.replaceChildren();
      for (const r of sorted) {
        const tr = el('tr');
        for (const c of columns) {
          const cell = c.cell(r);
          tr.appendChild(el('td', {class: c.numeric ? 'num' : null}, cell));
        }
        if (onRow) onRow(tr, r);
        body.appendChild(tr);
      }
      sort.mark();
    }

    table.appendChild(el('thead', null, head));
    table.appendChild(body);
    render();
    return table;
  }

  // The header row of a sortable table: one button per column (a second
  // click on the sorted column reverses it, a first click sorts in the
  // column's first-click direction), then render(). compare(a, b) orders two
  // rows by the sorted column, missing (null) values last either way; mark()
  // sets aria-sort on the headers.
  function sortHeader(head, columns, firstAscending, render) {
    let sortColumn = 0;
    let ascending = firstAscending;
    columns.forEach((c, i) => {
      const button = el('button', {type: 'button', title: c.title || null},
                        c.label);
      button.addEventListener('click', () => {
        if (sortColumn === i) {
          ascending = !ascending;
        } else {
          sortColumn = i;
          ascending = !c.descending;
        }
        render();
      });
      head.appendChild(el('th', {class: c.numeric ? 'num' : null}, button));
    });
    return {
      compare(a, b) {
        const col = columns[sortColumn];
        const x = col.value(a);
        const y = col.value(b);
        if (x === null && y === null) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        const c = x < y ? -1 : x > y ? 1 : 0;
        return ascending ? c : -c;
      },
      mark() {
        head.querySelectorAll('th').forEach((th, i) => {
          th.setAttribute('aria-sort', i !== sortColumn ? 'none'
                                       : ascending ? 'ascending' : 'descending');
        });
      },
    };
  }

  // ---- header -------------------------------------------------------------

  function renderHeader() {
    const m = data.meta;
    root.appendChild(el('header', null,
      el('h1', null, 'andweorc causal profile'),
      el('p', {class: 'command'}, el('code', null, m.title))));
  }

  // ---- summary: the answer first ------------------------------------------

  function impactText(t) {
    return 'impact ' + num(t.impact, 2) + ' [' + num(t.ci_low, 2) + ', ' +
           num(t.ci_high, 2) + ']';
  }

  // "lib/a.c:191 in f" (or "function f (lib/a.c)"), as nodes.
  function regionNodes(t) {
    if (t.granularity === 'function') {
      return ['function ', nameNode(t), ' (', pathNode(t, false), ')'];
    }
    return [pathNode(t, true), ' in ', nameNode(t)];
  }

  function summarySentences() {
    const s = data.summary;
    const out = [];
    const many = s.points.length > 1;
    for (const p of s.points) {
      const prefix = many ? p.name + ': ' : '';
      const t = p.top;
      if (!t) {
        out.push([prefix + 'no region was tested against this point.']);
        continue;
      }
      if (t.impact === null) {
        out.push([prefix + 'No region has an estimate yet (' + p.regions +
                  ' tested, none with enough experiments): run longer.']);
        continue;
      }
      if (t.significant && t.impact > 0) {
        const v = t.at10 ? t.at10[0] : null;
        const effect = p.kind === 'latency'
          ? 'latency ' + signedPct(v === null ? null : -v, 1)
          : 'program ' + signedPct(v, 1);
        out.push([prefix + 'Top region: ', ...regionNodes(t), ', ',
                  el('strong', null, impactText(t)),
                  ': 10% faster there → ', el('strong', null, effect), '.']);
        out.push([p.significant + ' of ' + p.regions +
                  (p.regions === 1 ? ' region ' : ' regions ') +
                  (p.significant === 1 ? 'is' : 'are') + ' significant.']);
      } else if (t.significant) {
        // Ranked first yet negative: nothing significant speeds it up.
        out.push([prefix + 'No region shows a significant gain yet; ' +
                  p.significant + ' of ' + p.regions +
                  (p.significant === 1 ? ' has' : ' have') +
                  ' a significant negative impact (faster there, slower ' +
                  'program), such as ', ...regionNodes(t), ', ' +
                  impactText(t) + ': run longer for a clear answer.']);
      } else {
        out.push([prefix + 'No region is significant yet (0 of ' + p.regions +
                  '); the best estimate so far: ', ...regionNodes(t), ', ' +
                  impactText(t) + ': run longer for a clear answer.']);
      }
    }
    if (s.points.length === 0) {
      const b = s.busiest_function;
      if (b) {
        out.push(['No causal answer (see below). The busiest function is ',
                  nameNode(b), ' (', pathNode(b, false), ') with ' +
                  pct(b.share, 1) + ' of samples: where the CPU time goes, ' +
                  'not necessarily what limits the program.']);
      } else {
        out.push(['No causal answer and no sample in scope (see below).']);
      }
    }
    const c = s.convergence;
    if (c) {
      const head = c.converged ? 'The answer had converged'
                               : 'The answer had not converged yet';
      out.push([c.detail ? head + ': ' + c.detail + '.' : head + '.']);
    }
    return out;
  }

  function renderSummary() {
    const list = el('ul');
    for (const parts of summarySentences()) list.appendChild(el('li', null, ...parts));
    root.appendChild(el('section', {class: 'summary', id: 'summary'},
                        el('h2', null, 'Summary'), list));
  }

  function renderWarnings() {
    if (data.warnings.length > 0) {
      const list = el('ul');
      for (const w of data.warnings) list.appendChild(el('li', null, w));
      root.appendChild(el('section', {class: 'warnings', id: 'warnings'},
                          el('h2', null, 'Warnings'), list));
    }
  }

  // Metadata: folded by default, one line says the gist.
  function renderDetails() {
    const m = data.meta;
    const facts = [
      ['Started', m.start_time || '–'],
      ['Duration', seconds(m.duration_s)],
      ['Exit', m.exit],
      ['Sampler', m.sampler],
      ['Samples', count(m.samples) + ' (' + count(m.lost_samples) + ' lost)'],
      ['Threads', count(m.threads) + ' in ' + count(m.processes) +
                  (m.processes === 1 ? ' process' : ' processes')],
      ['Mapped', m.mapped_share === null ? 'n/a (no samples)'
                 : pct(m.mapped_share, 1) + ' of samples have a source line'],
      ['In scope', m.in_scope_share === null ? 'n/a (no samples)'
                   : pct(m.in_scope_share, 1) + ' of samples'],
      ['Experiments', count(m.experiments) +
                      (m.settings.experiments ? '' : ' (sampling only)')],
    ];
    if (data.source_roots.length > 0) {
      facts.push(['Files', 'relative to ' + data.source_roots.join(', ')]);
    }
    const dl = el('dl', {class: 'facts'});
    for (const [k, v] of facts) {
      dl.appendChild(el('dt', null, k));
      dl.appendChild(el('dd', null, v));
    }
    const gist = 'Run details: ' + seconds(m.duration_s) + ', ' +
      count(m.samples) + ' samples, ' + count(m.experiments) +
      ' experiments, ' + count(m.threads) +
      (m.threads === 1 ? ' thread' : ' threads');
    root.appendChild(el('details', {class: 'run-details', id: 'run-details'},
                        el('summary', null, gist), dl));
  }

  // ---- causal profile -----------------------------------------------------

  function pointLabel(p) {
    return p.kind + ' point “' + p.name + '”';
  }

  function effectWord(p) {
    return p.kind === 'latency' ? 'latency reduction' : 'program speed-up';
  }

  function impactCell(l) {
    if (l.impact === null) return el('span', {class: 'muted'}, l.verdict_text);
    return el('span', {class: l.significant ? 'sig' : 'insig'},
              num(l.impact, 3),
              el('span', {class: 'ci'},
                 ' [' + num(l.ci_low, 3) + ', ' + num(l.ci_high, 3) + ']'));
  }

  // The ranked regions grouped by function: one tbody per function, its
  // header row showing the function's best line (or the function itself,
  // for function-level experiments) and the function's share of samples,
  // its lines folded below it. Sorting a column orders the functions by
  // their header row's value and the lines inside each by theirs.
  function causalTable(point, pi) {
    const columns = [
      {label: 'Rank', value: r => r.rank, numeric: true},
      {label: 'Function', value: r => functionName(r.function)},
      {label: 'Line', value: r => shortFile(r) + ':' +
                                   String(r.line).padStart(9, '0')},
      {label: 'Impact (95% CI)', numeric: true, descending: true,
       title: effectWord(point) + ' per unit of line speed-up',
       value: r => r.impact},
      {label: 'R²', numeric: true, descending: true, value: r => r.r2},
      {label: 'Experiments', numeric: true, descending: true,
       title: 'points in the fit, 0% baselines included',
       value: r => r.experiments},
      {label: 'Samples', numeric: true, descending: true,
       title: 'share of all samples: in the function (its row) or on the line',
       value: r => r.sample_share},
    ];
    const groups = point.groups.map((g, gi) => {
      const best = point.lines[g.best];
      return {
        group: g, index: gi,
        lines: g.lines.map(i => point.lines[i]),
        // The values the header row shows and sorts by.
        row: Object.assign({}, best, {function: g.function,
                                      sample_share: g.sample_share}),
      };
    });
    const table = el('table', {id: 'causal-table', class: 'sortable grouped'});
    const head = el('tr');
    const sort = sortHeader(head, columns, true, render);

    function impactRow(tr, l) {
      tr.append(el('td', {class: 'num'}, impactCell(l)),
                el('td', {class: 'num'}, num(l.r2, 2)),
                el('td', {class: 'num'}, count(l.experiments)));
    }

    function lineLink(l) {
      return el('a', {href: '#' + cardId(pi, l.rank),
                      title: l.file_path || null},
                breakable(where(l) +
                          (l.granularity === 'function' ? ' (function)' : ''),
                          kPathBreaks));
    }

    const bodies = groups.map(g => {
      const body = el('tbody', {class: 'group', 'data-group': g.index});
      const many = g.lines.length > 1;
      const r = g.row;
      const top = el('tr', {class: 'group-row', 'data-rank': r.rank});
      if (g.group.significant === 0) top.classList.add('not-significant');
      let toggle = null;
      if (many) {
        toggle = el('button', {type: 'button', class: 'toggle',
                               'aria-expanded': 'false',
                               title: 'show the function\'s ' +
                                      g.lines.length + ' lines'}, '▸');
      }
      const lineCell = g.group.granularity === 'function'
        ? el('td', null, pathNode(g.group, false), ' (function)')
        : el('td', null, lineLink(r),
             many ? el('span', {class: 'muted more'},
                       ' best of ' + g.lines.length + ' lines') : null);
      top.append(el('td', {class: 'num'}, String(r.rank)),
                  el('td', {class: 'fn'}, toggle, nameNode(g.group)),
                  lineCell);
      impactRow(top, r);
      top.appendChild(el('td', {class: 'num',
                                 title: 'share of all samples in the function'},
                          pct(g.group.sample_share, 1)));
      body.appendChild(top);
      const children = [];
      if (many) {
        for (const l of g.lines) {
          const tr = el('tr', {class: 'line-row', 'data-rank': l.rank,
                               hidden: 'hidden'});
          if (!l.significant) tr.classList.add('not-significant');
          tr.append(el('td', {class: 'num'}, String(l.rank)),
                    el('td', {class: 'fn muted'}, '↳'),
                    el('td', null, lineLink(l)));
          impactRow(tr, l);
          tr.appendChild(el('td', {class: 'num'}, pct(l.sample_share, 1)));
          tr._line = l;
          children.push(tr);
          body.appendChild(tr);
        }
        toggle.addEventListener('click', () => {
          const open = toggle.getAttribute('aria-expanded') !== 'true';
          toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
          toggle.textContent = open ? '▾' : '▸';
          for (const c of children) c.hidden = !open;
        });
      }
      body._group = g;
      body._children = children;
      return body;
    });

    function render() {
      const sorted = bodies.slice().sort(
        (a, b) => sort.compare(a._group.row, b._group.row));
      for (const b of sorted) {
        b._children.slice()
          .sort((x, y) => sort.compare(x._line, y._line))
          .forEach(c => b.appendChild(c));
        table.appendChild(b);  // moves it to the end, in the sorted order
      }
      sort.mark();
    }

    table.appendChild(el('thead', null, head));
    render();
    return table;
  }

  // Expands or folds every function of the table.
  function expandAll(table, open) {
    table.querySelectorAll('button.toggle').forEach(b => {
      if ((b.getAttribute('aria-expanded') === 'true') !== open) b.click();
    });
  }

  function cardId(pi, rank) {
    return 'line-' + pi + '-' + rank;
  }

  function sourceBlock(index) {
    const s = data.sources[index];
    if (!s) return null;
    if (s.error) {
      return el('p', {class: 'source-missing'},
                'Source: ' + s.error + ' (',
                s.file ? pathNode(s, false) : 'no file', ').');
    }
    const pre = el('pre', {class: 'source'});
    s.lines.forEach((text, i) => {
      const n = s.first_line + i;
      const row = el('span', {class: n === s.line ? 'src hit' : 'src'},
                     el('span', {class: 'ln'}, String(n)), text);
      pre.appendChild(row);
    });
    const caption = el('p', {class: 'source-caption muted'},
      s.found_as ? 'Source as read from ' + s.found_as +
                   ' when the report was written:'
                 : 'Source when the report was written:');
    return el('div', null, caption, pre);
  }

  function predictionsText(point, l) {
    if (l.impact === null) return null;
    const parts = l.predictions.map(p =>
      (p.line_speedup * 100).toFixed(0) + '% → ' + signedPct(p.value, 1) +
      ' [' + signedPct(p.low, 1) + ', ' + signedPct(p.high, 1) + ']');
    return 'Predicted ' + effectWord(point) + ' if this line gets faster by ' +
           parts.join('; ') + '.';
  }

  // Where the impact can stand among the ranked lines (the JSON's places):
  // ' Place 2-9 of 19 by impact.'; '' for a line not ranked by impact.
  function placeText(l) {
    const p = l.places;
    if (!p || p.of < 2) return '';
    const where = p.high > p.low ? p.low + '-' + p.high : String(p.low);
    return ' Place ' + where + ' of ' + p.of + ' by impact.';
  }

  function lineCard(point, pi, l) {
    const card = el('section', {class: 'card', id: cardId(pi, l.rank)});
    card.appendChild(el('h3', null,
      el('span', {class: 'rank'}, '#' + l.rank), ' ', pathNode(l, true), ' ',
      nameNode(l)));
    const facts = l.impact === null
      ? l.verdict_text
      : 'Impact ' + num(l.impact, 3) + ' (95% CI ' + num(l.ci_low, 3) +
        ' to ' + num(l.ci_high, 3) + '), R² ' + num(l.r2, 2) + ', ' +
        l.experiments + ' experiments (' + l.speedup_experiments +
        ' sped up, ' + l.baseline_experiments + ' at 0%' +
        (l.own_baseline ? '' : ', pooled from the run') + '): ' +
        l.verdict_text + '.' + placeText(l);
    card.appendChild(el('p', {class: 'facts-line'}, facts));
    const prediction = predictionsText(point, l);
    if (prediction) card.appendChild(el('p', {class: 'muted'}, prediction));
    if (l.points.length > 0) {
      const holder = el('div', {class: 'plot'});
      const caption = el('p', {class: 'hover muted'},
        'Hover a point to see its experiment; drag to zoom, double-click ' +
        'to reset.');
      card.appendChild(holder);
      card.appendChild(caption);
      card._plot = () => makePlot(holder, caption, point, l);
    } else {
      card.appendChild(el('p', {class: 'muted'},
        'No experiment measured this point against a baseline, so there is ' +
        'no curve.'));
    }
    const src = sourceBlock(l.source);
    if (src) card.appendChild(src);
    return card;
  }

  // Aligned rows for uPlot: the experiments and the fit's grid, by x. The
  // fit and its interval are straight lines between grid points, so linear
  // interpolation gives their exact value at an experiment's x.
  function plotRows(l) {
    const rows = [];
    const curve = l.curve;
    function lerp(x, k) {
      if (curve.length === 0) return null;
      let i = 0;
      while (i + 2 < curve.length && curve[i + 1][0] < x) i++;
      const a = curve[i];
      const b = curve[Math.min(i + 1, curve.length - 1)];
      if (b[0] === a[0]) return a[k];
      return a[k] + (b[k] - a[k]) * (x - a[0]) / (b[0] - a[0]);
    }
    for (const p of l.points) {
      rows.push({x: p[0], own: p[6] ? p[1] : null, other: p[6] ? null : p[1],
                 point: p, fit: lerp(p[0], 1), lo: lerp(p[0], 2),
                 hi: lerp(p[0], 3)});
    }
    for (const c of curve) {
      rows.push({x: c[0], own: null, other: null, point: null, fit: c[1],
                 lo: c[2], hi: c[3]});
    }
    rows.sort((a, b) => a.x - b.x || (a.point ? 1 : 0) - (b.point ? 1 : 0));
    return rows;
  }

  function plotWidth(holder) {
    return Math.max(320, Math.min(holder.clientWidth || 720, 900));
  }

  function makePlot(holder, caption, point, l) {
    const rows = plotRows(l);
    const anyOther = rows.some(r => r.other !== null);
    const fitted = l.curve.length > 0;
    const noPath = () => null;
    const series = [
      {label: 'line speed-up', value: (u, v) => v === null ? '–' : pct(v, 0)},
      {label: 'experiments on this line', stroke: '#1f4e9c', fill: '#1f4e9c',
       paths: noPath, points: {show: true, size: 8, fill: '#1f4e9c'},
       value: (u, v) => signedPct(v, 1)},
    ];
    const columns = [rows.map(r => r.x), rows.map(r => r.own)];
    if (anyOther) {
      series.push({label: '0% runs of other lines (baseline)',
                   stroke: '#777', paths: noPath,
                   points: {show: true, size: 7, fill: '#fff'},
                   value: (u, v) => signedPct(v, 1)});
      columns.push(rows.map(r => r.other));
    }
    const bands = [];
    if (fitted) {
      const base = series.length;
      series.push({label: 'fit', stroke: '#d9480f', width: 2,
                   points: {show: false}, value: (u, v) => signedPct(v, 1)});
      series.push({label: '95% high', stroke: 'rgba(217,72,15,0.35)',
                   dash: [4, 4], points: {show: false},
                   value: (u, v) => signedPct(v, 1)});
      series.push({label: '95% low', stroke: 'rgba(217,72,15,0.35)',
                   dash: [4, 4], points: {show: false},
                   value: (u, v) => signedPct(v, 1)});
      columns.push(rows.map(r => r.fit), rows.map(r => r.hi),
                   rows.map(r => r.lo));
      bands.push({series: [base + 1, base + 2],
                  fill: 'rgba(217,72,15,0.12)'});
    }
    const pointSeries = anyOther ? [1, 2] : [1];
    const xMax = Math.max(...rows.map(r => r.x), 0.1);

    // The hovered experiment: the point nearest to the cursor, in pixels.
    function nearest(u) {
      const {left, top} = u.cursor;
      if (left === undefined || left < 0) return null;
      let best = null;
      let bestD = 400;  // at most 20 px away
      rows.forEach((r, i) => {
        for (const s of pointSeries) {
          const y = columns[s][i];
          if (y === null) continue;
          const dx = u.valToPos(r.x, 'x') - left;
          const dy = u.valToPos(y, 'y') - top;
          const d = dx * dx + dy * dy;
          if (d < bestD) {
            bestD = d;
            best = i;
          }
        }
      });
      return best;
    }

    const opts = {
      width: plotWidth(holder),
      height: 300,
      series: series,
      bands: bands,
      scales: {
        x: {time: false, range: [0, xMax * 1.05]},
        y: {range: (u, min, max) => {
          const lo = Math.min(min, 0);
          const hi = Math.max(max, 0);
          const pad = (hi - lo) * 0.08 || 0.05;
          return [lo - pad, hi + pad];
        }},
      },
      axes: [
        {label: 'line speed-up', values: (u, vals) => vals.map(v => pct(v, 0))},
        {label: effectWord(point), size: 64,
         values: (u, vals) => vals.map(v => signedPct(v, 0))},
      ],
      cursor: {
        dataIdx: (u, seriesIdx, closestIdx) => {
          if (!pointSeries.includes(seriesIdx)) return closestIdx;
          const i = nearest(u);
          return i === null ? closestIdx : i;
        },
      },
      hooks: {
        setCursor: [u => {
          const i = nearest(u);
          if (i === null || !rows[i].point) return;
          const e = rows[i].point;
          caption.textContent = 'Experiment ' + (e[2] + 1) + ': line sped ' +
            'up ' + e[3] + '% for ' + e[4].toFixed(3) + ' s, ' + count(e[5]) +
            (point.kind === 'latency' ? ' arrivals' : ' visits') + ' → ' +
            effectWord(point) + ' ' + signedPct(e[1], 1) +
            (e[6] ? '' : ' (a 0% run of another line, used as baseline)') +
            '.';
        }],
      },
    };
    const u = new uPlot(opts, columns, holder);
    plots.push(u);
    return u;
  }

  function renderCurves(container, point, pi) {
    for (const u of plots) u.destroy();
    plots.length = 0;
    container.replaceChildren();
    const cards = point.lines.map(l => lineCard(point, pi, l));
    for (const c of cards) container.appendChild(c);
    // Plots measure their holder, so draw them once the cards are placed.
    for (const c of cards) if (c._plot) c._plot();
  }

  function renderCausal() {
    const c = data.causal;
    const section = el('section', {id: 'causal'},
                       el('h2', null, 'Causal profile'));
    root.appendChild(section);
    // Without curves, the reason already says what the notes would.
    if (c.no_curves) {
      section.appendChild(el('p', {class: 'notice'}, c.no_curves));
    } else {
      for (const n of c.notes) section.appendChild(el('p', {class: 'note'}, n));
    }
    if (c.points.length === 0) return;
    section.appendChild(el('p', {class: 'muted'},
      'Impact: how much the program speeds up per unit of line speed-up ' +
      '(0.5 means a line made 10% faster makes the program 5% faster), ' +
      'with its ' + (c.level * 100).toFixed(0) + '% confidence interval. ' +
      c.ranking_rule));

    const select = el('select', {id: 'point-select'});
    c.points.forEach((p, i) => {
      select.appendChild(el('option', {value: String(i)}, pointLabel(p) +
        ' (' + p.lines.length + ' lines)'));
    });
    section.appendChild(el('label', {class: 'picker'}, 'Progress point: ',
                           select));
    const summary = el('p', {class: 'muted', id: 'point-summary'});
    const tools = el('p', {class: 'table-tools muted'},
      'Lines are grouped by function (▸ shows them). ',
      el('button', {type: 'button', id: 'expand-all'}, 'Expand all'), ' ',
      el('button', {type: 'button', id: 'collapse-all'}, 'Collapse all'),
      data.source_roots.length > 0
        ? ' Paths are relative to ' + data.source_roots.join(', ') +
          ' (hover for the whole path).'
        : null);
    const tableHolder = el('div', {class: 'table-holder'});
    const curvesHeading = el('h2', null, 'Curves');
    const curvesNote = el('p', {class: 'muted'},
      'Each experiment sped one line up virtually and measured the ' +
      'program. Filled dots: its experiments; hollow dots: 0% runs of other ' +
      'lines when the line has too few of its own. The line is the ' +
      'weighted fit; the shaded band is the ' + (c.level * 100).toFixed(0) +
      '% interval of the predicted speed-up.');
    const curves = el('div', {id: 'curves'});
    section.append(summary, tools, tableHolder, curvesHeading, curvesNote,
                   curves);
    tools.querySelector('#expand-all').addEventListener('click', () =>
      expandAll(tableHolder.querySelector('table'), true));
    tools.querySelector('#collapse-all').addEventListener('click', () =>
      expandAll(tableHolder.querySelector('table'), false));

    function show(i) {
      const p = c.points[i];
      summary.textContent = pointLabel(p) + ': ' + p.experiments +
        ' experiments, ' + p.reached + ' reached it, ' + p.lines.length +
        ' regions in ' + p.groups.length +
        (p.groups.length === 1 ? ' function' : ' functions') + '; baseline ' +
        (p.baseline_s === null ? 'none'
         : p.kind === 'latency' ? (p.baseline_s * 1e3).toFixed(3) + ' ms'
         : (p.baseline_s * 1e6).toFixed(2) + ' µs per visit') + '.';
      tableHolder.replaceChildren(causalTable(p, i));
      renderCurves(curves, p, i);
    }
    select.addEventListener('change', () => show(Number(select.value)));
    show(0);
  }

  // ---- sampling profile ---------------------------------------------------

  function renderSampling() {
    const s = data.sampling;
    const section = el('section', {id: 'sampling'},
                       el('h2', null, 'Sampling profile'));
    root.appendChild(section);
    if (s.total === 0) {
      section.appendChild(el('p', {class: 'notice'}, 'No samples.'));
      return;
    }
    if (s.in_scope === 0) {
      section.appendChild(el('p', {class: 'notice'},
        'No sample fell in scope. Check --binary-scope and --source-scope, ' +
        'and build with -g so that samples map to source lines.'));
      renderStacks(section);
      return;
    }
    section.appendChild(el('p', {class: 'muted'},
      'Where the CPU time went: samples attributed to the first in-scope ' +
      'frame of each stack. Shares are of all ' + count(s.total) +
      ' samples. This is not the causal impact: a busy line may not matter.'));
    const lineCols = [
      {label: 'Samples', numeric: true, descending: true,
       value: r => r.samples, cell: r => count(r.samples)},
      {label: 'Share', numeric: true, descending: true, value: r => r.share,
       cell: r => pct(r.share, 1)},
      {label: 'Line', value: r => where(r), cell: r => pathNode(r, true)},
      {label: 'Function', value: r => functionName(r.function),
       cell: r => nameNode(r)},
    ];
    const lines = sortableTable('sampling-lines', lineCols, s.lines, null);
    section.appendChild(el('h3', null, 'Top lines'));
    section.appendChild(lines);
    if (s.more_lines > 0) {
      section.appendChild(el('p', {class: 'muted'},
        '… ' + s.more_lines + ' more lines.'));
    }
    const fnCols = [lineCols[0], lineCols[1],
      {label: 'Function', value: r => functionName(r.function),
       cell: r => nameNode(r)},
      {label: 'File', value: r => shortFile(r), cell: r => pathNode(r, false)},
    ];
    section.appendChild(el('h3', null, 'Top functions'));
    section.appendChild(sortableTable('sampling-functions', fnCols,
                                      s.functions, null));
    if (s.more_functions > 0) {
      section.appendChild(el('p', {class: 'muted'},
        '… ' + s.more_functions + ' more functions.'));
    }
    renderStacks(section);
  }

  // A flame graph (src/report/html/flame.js) under its heading, with what
  // it leaves out; `sides` names a differential graph's two profiles.
  function flameGraph(parent, id, g, heading, text, sides) {
    if (!g || !g.samples) return;
    const holder = el('div', {id: id});
    let note = text;
    if (g.pruned_nodes > 0) {
      note += ' ' + count(g.pruned_nodes) + ' frames under 0.5% of the ' +
          'samples (' + count(g.pruned_samples) + ' samples) are not drawn.';
    }
    parent.append(heading, el('p', {class: 'muted'}, note), holder);
    window.andweorcFlame.create(holder, {unit: 'samples', sides}).draw(g);
  }

  // Every sample's call stack, all code (not only the scope).
  function renderStacks(section) {
    flameGraph(section, 'sampling-flame', data.sampling.flame,
        el('h3', null, 'Call stacks'),
        'Each frame is a function, as wide as its samples (its callees\' ' +
        'included), the outermost on top; inlined functions are frames of ' +
        'their own; all code, not only the profiled scope. Click a frame ' +
        'to zoom in, a bar above it to zoom out.');
  }

  // --trace: each traced function's latency distribution (calls per
  // log-spaced duration bin) and the lines of its slow calls (> p95) beside
  // its other calls'.
  function durationText(ns) {
    if (ns >= 1e9) return num(ns / 1e9, 2) + ' s';
    if (ns >= 1e6) return num(ns / 1e6, 2) + ' ms';
    if (ns >= 1e3) return num(ns / 1e3, 1) + ' us';
    return String(ns) + ' ns';
  }

  function renderTraces() {
    if (!data.traces || data.traces.length === 0) return;
    const section = el('section', {id: 'traces'},
                       el('h2', null, 'Traced functions'));
    root.appendChild(section);
    data.traces.forEach((t, ti) => {
      section.appendChild(el('h3', null, t.name));
      if (!t.traced) {
        section.appendChild(el('p', {class: 'notice'},
          'Not traced: the runtime could not patch it (see the warnings).'));
        return;
      }
      section.appendChild(el('p', {class: 'muted'},
        count(t.calls) + ' calls; p50 ' + durationText(t.p50_ns) + ', p90 ' +
        durationText(t.p90_ns) + ', p95 ' + durationText(t.p95_ns) +
        ', p99 ' + durationText(t.p99_ns) + ', max ' +
        durationText(t.max_ns) + '; ' + count(t.samples) +
        ' samples inside its calls.'));
      const h = t.histogram;
      if (h.counts.length > 0) {
        const holder = el('div', {class: 'plot', id: 'trace-plot-' + ti});
        section.appendChild(holder);
        const xs = h.bins_ns.map(v => v / 1e6);
        const opts = {
          width: plotWidth(holder),
          height: 220,
          scales: {x: {time: false, distr: xs.length > 1 ? 3 : 1}},
          series: [{label: 'duration (ms, bin start)'},
                   {label: 'calls', stroke: '#3465a4', width: 2,
                    points: {show: true}}],
          axes: [{label: 'call duration (ms, log scale)'},
                 {label: 'calls', size: 64}],
        };
        // Not in `plots`: a change of progress point destroys those.
        new uPlot(opts, [xs, h.counts], holder);
      }
      section.appendChild(el('p', {class: 'muted'},
        'Slow calls: the ' + count(t.slow_calls) + ' calls slower than p95 (' +
        durationText(t.slow_threshold_ns) + '), ' + count(t.slow_samples) +
        ' samples; the other calls: ' + count(t.fast_samples) +
        ' samples. Shares are of each side\'s samples.'));
      const cols = [
        {label: 'Slow calls', numeric: true, descending: true,
         value: r => r.slow, cell: r => pct(r.slow, 1)},
        {label: 'Other calls', numeric: true, descending: true,
         value: r => r.fast, cell: r => pct(r.fast, 1)},
        {label: 'Difference', numeric: true, descending: true,
         value: r => r.slow - r.fast, cell: r => signedPct(r.slow - r.fast, 1)},
        {label: 'Line', value: r => r.where, cell: r => r.where},
        {label: 'Function', value: r => r.function, cell: r => r.function},
      ];
      section.appendChild(sortableTable('trace-lines-' + ti, cols, t.lines,
                                        null));
      flameGraph(section, 'trace-flame-' + ti, t.flame,
          el('h4', null, 'Stacks of the slow calls'),
          'The slow calls\' samples by call stack; red frames have a ' +
          'larger share of the slow calls\' samples than of the other ' +
          'calls\', blue ones a smaller share (hover for both).',
          ['slow calls', 'other calls']);
    });
  }

  function renderFooter() {
    const m = data.meta;
    root.appendChild(el('footer', null,
      'Written by andweorc ' + (m.tool_version || '') + ' · plots by uPlot ' +
      m.uplot_version + ' · this file works offline.'));
  }

  renderHeader();
  renderSummary();
  renderWarnings();
  renderDetails();
  renderCausal();
  renderSampling();
  renderTraces();
  renderFooter();

  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      for (const u of plots) {
        u.setSize({width: plotWidth(u.root.parentNode), height: 300});
      }
    }, 150);
  });
})();
