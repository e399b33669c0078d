// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Time charts of the live view (issue 20, what to build 5): SVG, so that a person reads them and
// the browser test finds their parts in the DOM. Each chart has a time axis (the simulation time
// t [s] of the frames it holds), a value axis with its unit, tick labels on both, and a legend
// naming every trace (p50, p99, ...). Log-scale charts label their ticks as powers of ten.

const SVG = 'http://www.w3.org/2000/svg';
const MARGIN = { left: 52, right: 8, top: 6, bottom: 30 };
const HEIGHT = 128;
// Width of the time axis per bucket of drawn samples (Chart.drawnSamples): at most two points per
// 6 px, finer than a person reads a 128 px high chart.
const PX_PER_BUCKET = 6;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// About `count` round tick values covering [lo, hi]: steps of 1, 2 or 5 times a power of ten.
export function niceTicks(lo, hi, count = 4) {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span)) return [lo];
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  // 1.0001 * raw: 10 * mag may round just below raw
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s * 1.0001 >= raw);
  const ticks = [];
  // integer multiples of the step, so that no rounding accumulates (at most 100 ticks)
  const first = Math.ceil(lo / step);
  for (let n = 0; n < 100 && (first + n) * step <= hi + 1e-9 * step; ++n) ticks.push((first + n) * step);
  // a round step can exceed half the span (span 2.01, 3 ticks: step 1 would do, 5 gives one
  // tick): ask for more until two show
  if (ticks.length < 2 && count < 64) return niceTicks(lo, hi, 2 * count);
  return ticks;
}

// A tick's label, with as many digits as the tick step needs to tell neighbours apart.
function tickText(v, log, step) {
  if (log) return `1e${Math.round(v)}`;
  const a = Math.abs(v);
  const digits = Math.min(Math.max(Math.ceil(Math.log10(Math.max(a, step) / step)) + 1, 1), 15);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(Math.max(digits - 1, 0));
  return String(Number(v.toPrecision(digits)));
}

/// One chart: title, y label with unit, traces {name, color}; `log`: log10 value axis.
export class Chart {
  constructor(parent, { id, title, yLabel, unit, traces, log = false, history = 300, empty = 'no data yet' }) {
    this.log = log;
    this.history = history;
    this.traces = traces;
    this.t = [];
    this.values = traces.map(() => []);
    const box = document.createElement('figure');
    box.className = 'chart';
    box.id = id;
    const caption = document.createElement('figcaption');
    caption.textContent = log ? `${title} (log scale)` : title;
    box.appendChild(caption);
    this.svg = el('svg', { class: 'chart-plot', height: HEIGHT }, box);
    this.grid = el('g', { class: 'grid' }, this.svg);
    this.xAxis = el('g', { class: 'x-axis' }, this.svg);
    this.yAxis = el('g', { class: 'y-axis' }, this.svg);
    this.lines = traces.map((tr) =>
      el('polyline', { class: 'trace', fill: 'none', stroke: tr.color, 'stroke-width': 1.5 }, this.svg));
    this.xLabel = el('text', { class: 'axis-label' }, this.xAxis);
    this.xLabel.textContent = 'simulation time t [s]';
    this.yLabel = el('text', { class: 'axis-label', transform: 'rotate(-90)' }, this.yAxis);
    this.yLabel.textContent = `${yLabel} [${unit}]`;
    this.empty = el('text', { class: 'no-data', x: MARGIN.left + 8, y: MARGIN.top + 16 }, this.svg);
    this.empty.textContent = empty;
    const legend = document.createElement('ul');
    legend.className = 'legend';
    for (const tr of traces) {
      const li = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = tr.color;
      li.appendChild(swatch);
      li.appendChild(document.createTextNode(tr.name));
      legend.appendChild(li);
    }
    box.appendChild(legend);
    parent.appendChild(box);
    // The plot's width, kept up to date by a ResizeObserver: reading clientWidth in draw() would
    // force the browser to lay out the page, which the previous draw changed, once per chart and
    // draw (issue 20 point 6: the page's frame rate); null until the first observation.
    this.width = null;
    new ResizeObserver((entries) => {
      for (const e of entries) this.width = e.contentRect.width;
    }).observe(this.svg);
  }

  /// Forgets every sample (a new scene: another model or a reconnect).
  clear() {
    this.t = [];
    this.values = this.traces.map(() => []);
  }

  /// Adds one sample per trace at simulation time t (null or non-finite: a gap).
  push(t, samples) {
    this.t.push(t);
    samples.forEach((v, k) => this.values[k].push(v));
    if (this.t.length > this.history) {
      this.t.shift();
      for (const list of this.values) list.shift();
    }
  }

  value(v) {
    if (v === null || v === undefined || !Number.isFinite(v)) return null;
    if (this.log) return v > 0 ? Math.log10(v) : null;
    return v;
  }

  draw() {
    const w = Math.max(this.width || 300, 120);
    const plotW = w - MARGIN.left - MARGIN.right;
    const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
    const ys = this.values.flat().map((v) => this.value(v)).filter((v) => v !== null);
    this.empty.style.display = ys.length === 0 ? '' : 'none';
    let t0 = this.t.length ? this.t[0] : 0;
    let t1 = this.t.length ? this.t[this.t.length - 1] : 1;
    if (!(t1 > t0)) { t0 -= 0.5; t1 += 0.5; }  // paused: the frames share one t
    let lo = ys.length ? Math.min(...ys) : 0;
    let hi = ys.length ? Math.max(...ys) : 1;
    // a flat trace: widen the axis so that it still has ticks (relative to the values' size)
    if (hi - lo <= 1e-9 * Math.max(Math.abs(hi), Math.abs(lo), 1e-300)) {
      const w = this.log ? 1 : Math.max(Math.abs(hi) * 0.1, 1e-9);
      hi += w;
      lo -= w;
    }
    const pad = 0.08 * (hi - lo);
    hi += pad;
    // times and energies below zero are real; step times are not: keep that axis at zero
    lo = !this.log && lo >= 0 ? Math.max(lo - pad, 0) : lo - pad;
    const x = (t) => MARGIN.left + ((t - t0) / (t1 - t0)) * plotW;
    const y = (v) => MARGIN.top + (1 - (v - lo) / (hi - lo)) * plotH;

    this.svg.setAttribute('width', w);
    this.svg.setAttribute('viewBox', `0 0 ${w} ${HEIGHT}`);
    for (const g of [this.grid]) while (g.firstChild) g.removeChild(g.firstChild);
    for (const g of [this.xAxis, this.yAxis]) {
      for (const c of [...g.childNodes]) if (c.getAttribute('class') !== 'axis-label') g.removeChild(c);
    }
    // axes lines
    el('line', { x1: MARGIN.left, y1: MARGIN.top + plotH, x2: MARGIN.left + plotW, y2: MARGIN.top + plotH, stroke: '#888' }, this.xAxis);
    el('line', { x1: MARGIN.left, y1: MARGIN.top, x2: MARGIN.left, y2: MARGIN.top + plotH, stroke: '#888' }, this.yAxis);
    const xTicks = niceTicks(t0, t1, 4);
    const yTicks = niceTicks(lo, hi, 3);
    const stepOf = (ticks) => (ticks.length > 1 ? ticks[1] - ticks[0] : 1);
    for (const tv of xTicks) {
      const px = x(tv);
      el('line', { x1: px, y1: MARGIN.top, x2: px, y2: MARGIN.top + plotH, stroke: '#eee' }, this.grid);
      const label = el('text', { class: 'tick', x: px, y: MARGIN.top + plotH + 11, 'text-anchor': 'middle' }, this.xAxis);
      label.textContent = tickText(tv, false, stepOf(xTicks));
    }
    for (const yv of yTicks) {
      const py = y(yv);
      el('line', { x1: MARGIN.left, y1: py, x2: MARGIN.left + plotW, y2: py, stroke: '#eee' }, this.grid);
      const label = el('text', { class: 'tick', x: MARGIN.left - 4, y: py + 3, 'text-anchor': 'end' }, this.yAxis);
      label.textContent = tickText(yv, this.log, stepOf(yTicks));
    }
    this.xLabel.setAttribute('x', MARGIN.left + plotW / 2);
    this.xLabel.setAttribute('y', HEIGHT - 3);
    this.xLabel.setAttribute('text-anchor', 'middle');
    this.yLabel.setAttribute('x', -(MARGIN.top + plotH / 2));
    this.yLabel.setAttribute('y', 10);
    this.yLabel.setAttribute('text-anchor', 'middle');
    const buckets = Math.max(1, Math.floor(plotW / PX_PER_BUCKET));
    this.values.forEach((list, k) => {
      const pts = [];
      for (const i of this.drawnSamples(list, t0, t1, buckets)) {
        pts.push(`${x(this.t[i]).toFixed(1)},${y(this.value(list[i])).toFixed(1)}`);
      }
      this.lines[k].setAttribute('points', pts.join(' '));
    });
  }

  // The samples of one trace that are drawn: per bucket of the time axis the smallest and the
  // largest value, in time order, so a spike (a p99 step time) stays visible. A polyline of every
  // sample (300 per trace, five charts redrawn 5 times a second) is rasterized anew by the browser
  // at each redraw; in headless Chromium with software WebGL that raster grew with the charts'
  // history until the page's animation frames fell from 58 to 10 per second (issue 20 point 6,
  // measured on the 1000-body chain with tests/e2e/view_fps_e2e.mjs).
  drawnSamples(list, t0, t1, buckets) {
    const picked = [];
    let bucket = -1;
    let lo = -1;
    let hi = -1;
    const flush = () => {
      if (lo < 0) return;
      if (lo === hi) picked.push(lo);
      else picked.push(Math.min(lo, hi), Math.max(lo, hi));
    };
    list.forEach((v, i) => {
      const yv = this.value(v);
      if (yv === null) return;
      const b = Math.min(buckets - 1, Math.floor(((this.t[i] - t0) / (t1 - t0)) * buckets));
      if (b !== bucket) {
        flush();
        bucket = b;
        lo = i;
        hi = i;
        return;
      }
      if (yv < this.value(list[lo])) lo = i;
      if (yv > this.value(list[hi])) hi = i;
    });
    flush();
    return picked;
  }
}
