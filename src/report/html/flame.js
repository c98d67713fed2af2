// flame.js: a flame graph drawn as an icicle (the outermost frames on top),
// one absolutely positioned element per frame, shared by the live page
// (src/live/html/live.js) and the HTML report. Loaded after dom.js.
//
// Data (report/flame_json.h): {samples, names: [...], nodes: [[name index,
// samples, depth], ...]} with nodes in preorder, siblings in a stable
// order, depth 1 for the outermost frames; a frame's samples include its
// callees'. A click on a frame zooms to it (it takes the whole width; its
// callers stay on top, full width, to zoom back out; the "all" bar shows
// everything again); the zoom is kept across draw() calls by the frame's
// path of names, so a live page can redraw every second. Hovering shows
// the function, its samples and its share of the span (and of the zoomed
// frame). A differential graph (nodes with a fourth element, the base
// profile's samples at the same path, and "base_samples") is coloured by
// the change of share: red where the frame has a larger share of the
// graph's samples than of the base's, blue where smaller. Names are text,
// never markup. (This file sits inside a script
// element: no closing script tag or comment opener, even in comments.)
(function () {
  'use strict';
  const {el, pct} = window.andweorcDom;
  const kRowPx = 18;
  const kMinWidth = 0.001;  // of the zoomed span: narrower frames are not drawn

  // A warm colour per name, the same on every draw; bracketed names
  // ("[libc.so.6]", "[unknown]", pseudo-frames) are not functions: grey.
  function color(name) {
    if (name.startsWith('[')) return 'hsl(0, 0%, 78%)';
    let h = 0;
    for (let i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) | 0;
    const u = (h >>> 0) / 4294967296;
    return 'hsl(' + Math.round(10 + 40 * u) + ', 85%, ' +
           Math.round(58 + 14 * ((h >>> 8) & 255) / 255) + '%)';
  }

  // A differential frame: the share it gains (red) or loses (blue) against
  // the base, the strongest change of the graph at full colour.
  function diffColor(d, strongest) {
    const t = strongest > 0 ? Math.min(1, Math.abs(d) / strongest) : 0;
    return 'hsl(' + (d >= 0 ? 0 : 215) + ', 75%, ' +
           Math.round(94 - 38 * t) + '%)';
  }

  // Each node's position in samples from the span's left edge, its parent
  // and its path of names (the zoom's key).
  function layout(g) {
    const out = [];
    const parents = [-1];  // by depth: the last node seen at that depth
    const cursor = [0, 0];
    for (const [ni, value, depth, base] of g.nodes) {
      const parent = depth > 1 ? parents[depth - 1] : -1;
      const x = cursor[depth] || 0;
      cursor[depth] = x + value;
      cursor[depth + 1] = x;
      parents[depth] = out.length;
      const name = g.names[ni];
      const key = (parent >= 0 ? out[parent].key : '') + '\u0000' + name;
      out.push({name, value, depth, x, parent, key, base});
    }
    return out;
  }

  // create(holder, {unit: 'samples', sides: ['slow calls', 'other calls']})
  // -> {draw(graph), zoomed()}; `sides` names a differential graph's two
  // profiles in the hover text.
  function create(holder, options) {
    const unit = (options && options.unit) || 'samples';
    const sides = (options && options.sides) || ['this profile', 'the base'];
    const box = el('div', {class: 'flame'});
    const tip = el('div', {class: 'flame-tip', hidden: 'hidden'});
    holder.replaceChildren(box, tip);
    let focusKey = '';  // '' is the whole span
    let graph = null;

    function share(v, of) { return of > 0 ? pct(v / of, 1) : '–'; }

    function show(ev, n, focus) {
      const total = graph.samples;
      let text = n.name + ': ' + n.value + ' ' + unit + ', ' +
                 share(n.value, total) + ' of all';
      if (focus && focus !== n && focus.value !== total) {
        text += ', ' + share(n.value, focus.value) + ' of ' + focus.name;
      }
      if (n.base !== undefined) {
        text = n.name + ': ' + share(n.value, total) + ' of the ' + sides[0] +
            '\' ' + unit + ' (' + n.value + '), ' +
            share(n.base, graph.base_samples) + ' of the ' + sides[1] +
            '\' (' + n.base + ')';
      }
      tip.textContent = text;
      tip.hidden = false;
      // Beside the pointer, within the window.
      tip.style.left = Math.max(0, Math.min(
          ev.clientX + 12, window.innerWidth - tip.offsetWidth - 8)) + 'px';
      tip.style.top = (ev.clientY + 14) + 'px';
    }

    function draw(g) {
      graph = g;
      const nodes = layout(g);
      let focus = nodes.find(n => n.key === focusKey) || null;
      if (!focus) focusKey = '';
      const left = focus ? focus.x : 0;
      const span = focus ? focus.value : g.samples;
      const onPath = new Set();  // the focus and its callers
      for (let i = focus ? nodes.indexOf(focus) : -1; i >= 0;
           i = nodes[i].parent) {
        onPath.add(i);
      }
      const frames = [];
      const all = el('div', {class: 'flame-frame flame-all' +
                                    (focus ? ' flame-ancestor' : ''),
                             'data-name': 'all',
                             'data-samples': String(g.samples)},
                     'all (' + g.samples + ' ' + unit + ')');
      all.style.left = '0';
      all.style.width = '100%';
      all.style.top = '0';
      all.addEventListener('click', () => { focusKey = ''; draw(graph); });
      frames.push(all);
      let depthMax = 0;
      // A differential graph's change of share per frame, and the largest.
      const diff = g.base_samples !== undefined;
      const change = n => (g.samples > 0 ? n.value / g.samples : 0) -
          (g.base_samples > 0 ? n.base / g.base_samples : 0);
      const strongest = diff ? Math.max(0, ...nodes.map(n =>
                                            Math.abs(change(n)))) : 0;
      nodes.forEach((n, i) => {
        let x0, w;
        if (onPath.has(i) && n !== focus) {
          x0 = 0; w = 1;  // a caller of the zoomed frame: full width
        } else {
          x0 = (n.x - left) / span;
          w = n.value / span;
          // Outside the zoomed frame's subtree (or too narrow): not drawn.
          if (focus && n.depth <= focus.depth && n !== focus) return;
          if (x0 < -1e-9 || x0 + w > 1 + 1e-9 || w < kMinWidth) return;
        }
        const f = el('div', {class: 'flame-frame' +
                                    (n === focus ? ' flame-focus' : '') +
                                    (onPath.has(i) && n !== focus
                                         ? ' flame-ancestor' : ''),
                             'data-name': n.name,
                             'data-samples': String(n.value),
                             'data-depth': String(n.depth)},
                     n.name);
        f.style.left = (x0 * 100) + '%';
        f.style.width = (w * 100) + '%';
        f.style.top = (n.depth * kRowPx) + 'px';
        f.style.background = diff ? diffColor(change(n), strongest)
                                  : color(n.name);
        if (diff) f.dataset.change = change(n).toFixed(4);
        f.addEventListener('mousemove', ev => show(ev, n, focus));
        f.addEventListener('mouseleave', () => { tip.hidden = true; });
        f.addEventListener('click', () => {
          focusKey = n === focus ? (n.parent >= 0 ? nodes[n.parent].key : '')
                                 : n.key;
          tip.hidden = true;
          draw(graph);
        });
        frames.push(f);
        depthMax = Math.max(depthMax, n.depth);
      });
      box.style.height = ((depthMax + 1) * kRowPx) + 'px';
      box.dataset.focus = focus ? focus.name : '';
      box.replaceChildren(...frames);
    }

    return {
      draw,
      zoomed: () => focusKey !== '',
    };
  }

  window.andweorcFlame = Object.freeze({create, layout});
})();
