// Small SVG charts for the dashboard: time lines and bars, drawn from plain arrays. No library.
'use strict';
(function () {
  const NS = 'http://www.w3.org/2000/svg';
  const M = { left: 46, right: 10, top: 8, bottom: 22 };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function text(parent, x, y, s, anchor) {
    const t = el('text', { x: x, y: y, 'text-anchor': anchor || 'start' }, parent);
    t.textContent = s;
    return t;
  }

  function frame(svg) {
    const w = Math.max(svg.clientWidth || 0, 200);
    const h = Math.max(svg.clientHeight || 0, 120);
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    return { w: w, h: h, x0: M.left, x1: w - M.right, y0: h - M.bottom, y1: M.top };
  }

  // Linear ticks from 0 to at least max, a round step apart (1, 2 or 5 times a power of ten).
  function linearTicks(max, count) {
    if (!(max > 0)) max = 1;
    const raw = max / count;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = 10 * p;
    for (const m of [1, 2, 5]) if (raw <= m * p) { step = m * p; break; }
    if (step < 1 && max >= 1) step = 1;
    const ticks = [];
    for (let v = 0; v < max + step - 1e-9; v += step) ticks.push(v);
    return ticks;
  }

  function fmt(v) {
    if (v >= 1e6) return (v / 1e6).toFixed(v >= 1e7 ? 0 : 1) + 'M';
    if (v >= 1e3) return (v / 1e3).toFixed(v >= 1e4 ? 0 : 1) + 'k';
    if (v >= 10 || v === 0) return String(Math.round(v));
    return String(Math.round(v * 100) / 100);
  }

  function ago(seconds) {
    if (seconds <= 0) return 'now';
    return seconds % 60 === 0 ? '-' + seconds / 60 + 'm' : '-' + seconds + 's';
  }

  // series: [{name, color, points: [[tSeconds, valueOrNull], ...]}]; opts: {from, to, log, maxGap, empty}
  // Points more than maxGap seconds apart are not joined.
  function line(svg, series, opts) {
    const f = frame(svg);
    const from = opts.from, to = opts.to;
    const xs = t => f.x0 + (f.x1 - f.x0) * (t - from) / Math.max(1, to - from);
    let max = 0;
    series.forEach(s => s.points.forEach(p => { if (p[1] != null && p[1] > max) max = p[1]; }));
    let ys, ticks;
    if (opts.log) {
      const lo = 0.1, hi = Math.max(100, Math.pow(10, Math.ceil(Math.log10(Math.max(max, 1)))));
      const span = Math.log10(hi) - Math.log10(lo);
      ys = v => f.y0 - (f.y0 - f.y1) * (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / span;
      ticks = [];
      for (let v = 1; v <= hi; v *= 10) ticks.push(v);
    } else {
      ticks = linearTicks(max, 4);
      const top = ticks[ticks.length - 1];
      ys = v => f.y0 - (f.y0 - f.y1) * v / top;
    }
    ticks.forEach(v => {
      const y = ys(v);
      el('line', { x1: f.x0, x2: f.x1, y1: y, y2: y, class: 'grid' }, svg);
      text(svg, f.x0 - 5, y + 4, fmt(v), 'end');
    });
    el('line', { x1: f.x0, x2: f.x1, y1: f.y0, y2: f.y0, class: 'axis' }, svg);
    const step = Math.max(1, Math.round((to - from) / 5));
    for (let t = to; t >= from; t -= step) {
      text(svg, xs(t), f.h - 6, ago(to - t), t === to ? 'end' : t - step < from ? 'start' : 'middle');
    }
    const maxGap = opts.maxGap || Infinity;
    let drawn = 0;
    series.forEach(s => {
      let d = '';
      const pts = s.points.filter(p => p[0] >= from);
      pts.forEach((p, i) => {
        if (p[1] == null) return;
        const x = xs(p[0]).toFixed(1), y = ys(p[1]).toFixed(1);
        const joined = i > 0 && pts[i - 1][1] != null && p[0] - pts[i - 1][0] <= maxGap;
        d += (joined ? 'L' : 'M') + x + ' ' + y;
        // a value with no neighbour would be an invisible one-point path: mark it with a dot
        const next = pts[i + 1];
        if (!joined && !(next && next[1] != null && next[0] - p[0] <= maxGap)) {
          el('circle', { cx: x, cy: y, r: 2.5, fill: s.color }, svg);
        }
        drawn++;
      });
      if (d) el('path', { d: d, fill: 'none', stroke: s.color, 'stroke-width': 1.8, 'stroke-linejoin': 'round' }, svg);
    });
    if (!drawn) text(svg, (f.x0 + f.x1) / 2, (f.y0 + f.y1) / 2, opts.empty || 'no data yet', 'middle').setAttribute('class', 'empty');
  }

  // values: counts per step; labels every `every` steps via label(i)
  function bars(svg, values, opts) {
    const f = frame(svg);
    const ticks = linearTicks(Math.max(0, ...values), 3);
    const top = ticks[ticks.length - 1];
    const bw = (f.x1 - f.x0) / Math.max(1, values.length);
    ticks.forEach(v => {
      const y = f.y0 - (f.y0 - f.y1) * v / top;
      el('line', { x1: f.x0, x2: f.x1, y1: y, y2: y, class: 'grid' }, svg);
      text(svg, f.x0 - 5, y + 4, fmt(v), 'end');
    });
    values.forEach((v, i) => {
      const h = (f.y0 - f.y1) * v / top;
      const r = el('rect', { x: f.x0 + i * bw + 1, y: f.y0 - h, width: Math.max(1, bw - 2), height: h, fill: opts.color }, svg);
      el('title', {}, r).textContent = opts.title(i, v);
    });
    el('line', { x1: f.x0, x2: f.x1, y1: f.y0, y2: f.y0, class: 'axis' }, svg);
    for (let i = 0; i <= values.length; i += opts.every) {
      text(svg, f.x0 + i * bw, f.h - 6, opts.label(i), i + opts.every > values.length ? 'end' : 'middle');
    }
  }

  function legend(div, series) {
    while (div.firstChild) div.removeChild(div.firstChild);
    series.forEach(s => {
      const span = document.createElement('span');
      const i = document.createElement('i');
      i.style.background = s.color;
      span.appendChild(i);
      span.appendChild(document.createTextNode(s.name));
      div.appendChild(span);
    });
  }

  window.DQCharts = { line: line, bars: bars, legend: legend };
})();
