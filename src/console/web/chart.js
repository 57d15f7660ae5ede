// @ts-check
import { loadUplot } from './vendor.js';

/**
 * The device chart: several fields over a time range, drawn by uPlot (the chart library of Grafana's time-series
 * panel), with gaps where the device wrote nothing. `withGaps` and `alignSeries` are the arithmetic (pure,
 * unit-tested in node); `createChart` draws.
 */

/** @typedef {[number, number]} Point [epoch ms, value] */
/** @typedef {{field: string, points: readonly Point[]}} Series */

/**
 * Two successive points further apart than this many times the series' usual step (the median of its steps) have a
 * gap between them: the device was silent (an outage), so no line joins them.
 */
export const GAP_FACTOR = 3;

/** Colours of the series in order (Okabe and Ito's palette, told apart with colour-blindness too). */
const COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000'];

/** Chart heights: the narrow one on phones, where the legend wraps below. */
const HEIGHT = { wide: 320, narrow: 220, breakpoint: 560 };

/**
 * The median step between successive points, or undefined with fewer than three points (too few to tell a gap).
 * @param {readonly Point[]} points sorted by time
 */
export function usualStep(points) {
  if (points.length < 3) return undefined;
  const steps = points.slice(1).map((p, i) => p[0] - points[i][0]).sort((a, b) => a - b);
  return steps[Math.floor(steps.length / 2)];
}

/**
 * The points with a null value inserted inside each gap (GAP_FACTOR), which uPlot draws as a break in the line.
 * @param {readonly Point[]} points sorted by time
 * @returns {{points: [number, number | null][], gaps: number}}
 */
export function withGaps(points) {
  const step = usualStep(points);
  /** @type {[number, number | null][]} */
  const out = [];
  let gaps = 0;
  points.forEach((point, i) => {
    if (step !== undefined && i > 0 && point[0] - points[i - 1][0] > GAP_FACTOR * step) {
      out.push([points[i - 1][0] + step, null]);
      gaps++;
    }
    out.push(point);
  });
  return { points: out, gaps };
}

/**
 * uPlot's columns: the union of the series' times, then one column of values per series. A value a series has
 * not at a time is `undefined`, which uPlot joins over; a gap is `null`, which it leaves open.
 * @param {readonly {points: readonly [number, number | null][]}[]} series
 * @returns {[number[], ...(number | null | undefined)[][]]}
 */
export function alignSeries(series) {
  const times = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const columns = series.map((s) => {
    /** @type {(number | null | undefined)[]} */
    const column = new Array(times.length).fill(undefined);
    for (const [t, v] of s.points) column[/** @type {number} */ (index.get(t))] = v;
    return column;
  });
  return [times, ...columns];
}

/**
 * What a series shows, for the caption and for anyone reading the page without seeing it (tests included).
 * @param {Series} series
 */
export function summarize({ field, points }) {
  const values = points.map((p) => p[1]);
  return {
    field,
    count: points.length,
    gaps: withGaps(points).gaps,
    min: values.length > 0 ? Math.min(...values) : undefined,
    max: values.length > 0 ? Math.max(...values) : undefined,
    last: values.length > 0 ? values[values.length - 1] : undefined,
  };
}

/** @param {number} value */
export const formatValue = (value) => (Math.abs(value) >= 1e6 || (value !== 0 && Math.abs(value) < 1e-3) ? value.toExponential(2) : String(Number(value.toPrecision(6))));

/**
 * A chart in `container` that follows the container's width. `draw` replaces what it shows; a new set of fields
 * makes a new uPlot, new points of the same fields only new data.
 * @param {HTMLElement} container
 * @param {AbortSignal} signal destroys the chart
 */
export async function createChart(container, signal) {
  const uPlot = await loadUplot();
  /** @type {import('uplot') | undefined} */
  let plot;
  let fieldsKey = '';
  let range = { start: 0, end: 1 };
  const size = () => {
    const width = Math.max(container.clientWidth, 200);
    return { width, height: width < HEIGHT.breakpoint ? HEIGHT.narrow : HEIGHT.wide };
  };
  const resize = new ResizeObserver(() => plot?.setSize(size()));
  resize.observe(container);
  signal.addEventListener('abort', () => {
    resize.disconnect();
    plot?.destroy();
  }, { once: true });

  /** @param {readonly string[]} fields */
  const options = (fields) => {
    // The canvas cannot read CSS variables: the axes take the page's colours (light or dark) when the chart is made.
    const css = getComputedStyle(document.documentElement);
    const grid = { stroke: css.getPropertyValue('--line').trim(), width: 1 };
    const axis = { stroke: css.getPropertyValue('--muted').trim(), grid, ticks: { show: false } };
    return /** @type {import('uplot').Options} */ ({
      ...size(),
      ms: 1,
      // Room on the right for half of the last time label, which is centred on its tick.
      padding: [12, 28, 0, 0],
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true, range: () => [range.start, range.end] } },
      series: [
        { label: 'Time' },
        ...fields.map((field, i) => ({
          label: field,
          stroke: COLOURS[i % COLOURS.length],
          width: 2,
          spanGaps: false,
          // The legend's value under the cursor: a dash in a gap or where the field has no point.
          value: (/** @type {unknown} */ _u, /** @type {number | null} */ v) => (v === null || v === undefined ? '–' : formatValue(v)),
        })),
      ],
      axes: [
        { ...axis, space: 70 },
        { ...axis, size: 64, values: (/** @type {unknown} */ _u, /** @type {number[]} */ ticks) => ticks.map(formatValue) },
      ],
    });
  };

  return {
    /**
     * @param {readonly Series[]} series
     * @param {{start: number, end: number}} span the time axis spans the whole range asked for
     */
    draw(series, span) {
      range = span;
      const data = /** @type {import('uplot').AlignedData} */ (alignSeries(series.map((s) => withGaps(s.points))));
      const key = series.map((s) => s.field).join('\n');
      if (plot && key === fieldsKey) {
        plot.setData(data);
        return;
      }
      plot?.destroy();
      fieldsKey = key;
      plot = new uPlot(options(series.map((s) => s.field)), data, container);
    },
  };
}

/** @typedef {Awaited<ReturnType<typeof createChart>>} Chart */
