// @ts-check
import { s } from './dom.js';

/**
 * A line chart drawn as SVG by hand: one series of [timestamp, value] points over a time range. `chartModel` is the
 * arithmetic (pure, unit-tested in node); `drawChart` turns a model into SVG elements. Enough for a time series,
 * and a few KB instead of a chart library.
 */

/** @typedef {[number, number]} Point [epoch ms, value] */
/** @typedef {{left: number, top: number, right: number, bottom: number}} Box */

export const CHART_SIZE = { width: 800, height: 300 };
const MARGIN = { left: 64, top: 16, right: 16, bottom: 36 };
/** Points are marked with a dot up to this many; beyond it the line alone reads better. */
const MAX_DOTS = 120;

/**
 * About `count` round tick values (1, 2 or 5 times a power of ten apart), from the last one at or below `min` to the
 * first one at or above `max`, so the axis is labelled at both ends.
 * @param {number} min
 * @param {number} max
 * @param {number} [count]
 * @returns {number[]}
 */
export function niceTicks(min, max, count = 5) {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * power).find((candidate) => candidate >= raw) ?? 10 * power;
  const ticks = [];
  const last = Math.ceil(max / step - 1e-9) * step;
  for (let v = Math.floor(min / step + 1e-9) * step; v <= last + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const TIME_STEPS = [1, 5, 15, 30].map((n) => n * 1000)
  .concat([1, 5, 15, 30].map((n) => n * 60_000))
  .concat([1, 3, 6, 12].map((n) => n * 3_600_000))
  .concat([1, 2, 7, 14, 30].map((n) => n * 86_400_000));

/**
 * Round times between start and end, about `count` of them; steps of an hour or more fall on local clock hours
 * (`tzOffsetMs`: the local zone's offset from UTC, east positive).
 * @param {number} start
 * @param {number} end
 * @param {number} [tzOffsetMs]
 * @param {number} [count]
 */
export function timeTicks(start, end, tzOffsetMs = 0, count = 6) {
  const step = TIME_STEPS.find((st) => (end - start) / st <= count) ?? TIME_STEPS[TIME_STEPS.length - 1];
  const offset = step >= 3_600_000 ? tzOffsetMs : 0;
  const ticks = [];
  for (let t = Math.ceil((start + offset) / step) * step - offset; t <= end; t += step) ticks.push(t);
  return { step, ticks };
}

/**
 * Where everything goes, in the SVG's own units.
 * @param {readonly Point[]} points sorted by time
 * @param {{start: number, end: number, tzOffsetMs?: number}} range the time axis spans the whole range asked for
 */
export function chartModel(points, { start, end, tzOffsetMs = 0 }) {
  const { width, height } = CHART_SIZE;
  /** @type {Box} */
  const plot = { left: MARGIN.left, top: MARGIN.top, right: width - MARGIN.right, bottom: height - MARGIN.bottom };
  const values = points.map((p) => p[1]);
  const min = values.length > 0 ? Math.min(...values) : 0;
  const max = values.length > 0 ? Math.max(...values) : 0;
  // A flat series gets a band around its value, so its line sits in the middle instead of on an edge.
  const [low, high] = max > min ? [min, max] : [min - 1, max + 1];
  const yTicks = niceTicks(low, high);
  const yMin = yTicks[0];
  const yMax = yTicks[yTicks.length - 1];
  const x = (/** @type {number} */ t) => round(plot.left + ((t - start) / (end - start || 1)) * (plot.right - plot.left));
  const y = (/** @type {number} */ v) => round(plot.bottom - ((v - yMin) / (yMax - yMin)) * (plot.bottom - plot.top));
  const coords = points.map(([t, v]) => ({ x: x(t), y: y(v), t, v }));
  const path = coords.map((c, i) => `${i === 0 ? 'M' : 'L'}${c.x} ${c.y}`).join(' ');
  const time = timeTicks(start, end, tzOffsetMs);
  return {
    plot,
    path,
    count: points.length,
    min,
    max,
    dots: coords.length <= MAX_DOTS ? coords : [],
    yTicks: yTicks.map((v) => ({ v, y: y(v) })),
    xTicks: time.ticks.map((t) => ({ t, x: x(t) })),
    timeStep: time.step,
  };
}

/** @typedef {ReturnType<typeof chartModel>} ChartModel */

const round = (/** @type {number} */ n) => Math.round(n * 10) / 10;

/** @param {number} value */
export const formatValue = (value) => (Math.abs(value) >= 1e6 || (value !== 0 && Math.abs(value) < 1e-3) ? value.toExponential(2) : String(Number(value.toPrecision(6))));

/**
 * @param {number} t
 * @param {number} step
 */
function timeLabel(t, step) {
  const d = new Date(t);
  if (step >= 86_400_000) return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', ...(step < 60_000 ? { second: '2-digit' } : {}) });
}

/**
 * Replaces the content of `svg` with the chart of `model`. The series path carries what was drawn as data
 * attributes (count, min, max), for anyone reading the page without seeing it, tests included.
 * @param {SVGSVGElement} svg
 * @param {ChartModel} model
 * @param {string} title what the chart shows, read by screen readers
 */
export function drawChart(svg, model, title) {
  const { plot } = model;
  const area = { x: plot.left, y: plot.top, width: plot.right - plot.left, height: plot.bottom - plot.top };
  svg.replaceChildren(
    s('title', {}, title),
    // An aggregated bucket may start before the range (a day bucket starts at midnight): the plot area clips it,
    // with room for the dots on its edges.
    s('defs', {}, s('clipPath', { id: 'chart-plot-area' }, s('rect', { x: area.x - 4, y: area.y - 4, width: area.width + 8, height: area.height + 8 }))),
    s('rect', { class: 'plot-area', ...area }),
    ...model.yTicks.flatMap(({ v, y }) => [
      s('line', { class: 'grid', x1: plot.left, x2: plot.right, y1: y, y2: y }),
      s('text', { class: 'tick-label', x: plot.left - 6, y: y + 4, 'text-anchor': 'end' }, formatValue(v)),
    ]),
    ...model.xTicks.flatMap(({ t, x }) => [
      s('line', { class: 'grid', x1: x, x2: x, y1: plot.top, y2: plot.bottom }),
      s('text', { class: 'tick-label', x, y: plot.bottom + 20, 'text-anchor': 'middle' }, timeLabel(t, model.timeStep)),
    ]),
  );
  if (model.count === 0) {
    svg.append(s('text', { class: 'no-data', x: (plot.left + plot.right) / 2, y: (plot.top + plot.bottom) / 2, 'text-anchor': 'middle' },
      'No points in this range'));
    return;
  }
  const series = s('g', { 'clip-path': 'url(#chart-plot-area)' });
  svg.append(series);
  series.append(s('path', {
    class: 'series',
    d: model.path,
    'data-count': model.count,
    'data-min': model.min,
    'data-max': model.max,
  }));
  for (const dot of model.dots) {
    series.append(s('circle', { class: 'point', cx: dot.x, cy: dot.y, r: 3 },
      s('title', {}, `${new Date(dot.t).toLocaleString()}: ${formatValue(dot.v)}`)));
  }
}
