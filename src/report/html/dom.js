// dom.js: the small helpers both pages' scripts use (the HTML report's
// report.js and the live page's live.js), loaded before them. Strings
// always become text nodes, never markup: names come from the profiled
// program. (This file sits inside a script element: it must not contain a
// closing script tag or a comment opener, even in comments; the build
// checks.)
(function () {
  'use strict';

  // el('p', {class: 'x'}, 'text', node, ...): an element with attributes and
  // children; null, undefined and false attributes are left out.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }

  // A number with `digits` decimals; '–' for a missing value, never "-0.0".
  function num(v, digits) {
    if (v === null || v === undefined) return '–';
    const s = v.toFixed(digits);
    return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
  }

  // A fraction as a percentage, as num() writes numbers.
  function pct(v, digits) {
    return v === null || v === undefined ? '–' : num(v * 100, digits) + '%';
  }

  window.andweorcDom = Object.freeze({el, num, pct});
})();
