// @ts-check
import { feed } from './api.js';
import { createChart, formatValue, summarize } from './chart.js';
import { formatTime, h } from './dom.js';
import { reportError } from './report.js';
import {
  AGGREGATORS, autoSampling, DEFAULT_RANGE, extentQuery, fieldsQuery, historyQuery, RANGES, resolveRange, SAMPLINGS,
} from './time-range.js';

/** Fields charted when the page opens (the first ones by name); the others are a tick away. */
export const DEFAULT_FIELDS = 4;

/** @typedef {import('./chart.js').Point} Point */
/** @typedef {{start: number, end: number, live: boolean}} Span */

/**
 * The results of a data-store query grouped by `attr`: the points of each field.
 * @param {any} reply
 * @returns {Map<string, Point[]>}
 */
const pointsByField = (reply) => new Map((reply.queries?.[0]?.results ?? [])
  .filter((/** @type {any} */ r) => r.tags?.attr?.length === 1)
  .map((/** @type {any} */ r) => [r.tags.attr[0], r.values ?? []]));

/**
 * The history of a device's points as a live chart of several fields, from the data-store API with a user token of
 * its project: the fields, a time range (fitted to the data, a preset or custom), an aggregator and its sampling.
 * A range that ends at now follows new points: `update` is called on every read of the shadow, and asks the data
 * store only for what came after the last point shown, and only when the shadow changed (points are the record of
 * shadow writes, docs/data-store.md).
 * @param {{deviceid: string, projectid: string, signal: AbortSignal}} device
 * @returns {{elements: HTMLElement[], update: (shadowKey: string) => void}}
 */
export function historyPanel({ deviceid, projectid, signal }) {
  const fieldList = h('fieldset', { id: 'chart-fields', class: 'inline field-picks' }, h('legend', {}, 'Fields'));
  const range = h('select', { id: 'chart-range', name: 'range' },
    h('option', { value: 'fit', selected: DEFAULT_RANGE === 'fit' }, 'Fitted to the data'),
    ...RANGES.map((r) => h('option', { value: r.id, selected: r.id === DEFAULT_RANGE }, r.label)),
    h('option', { value: 'custom' }, 'Custom range'));
  const from = h('input', { id: 'chart-from', name: 'from', type: 'datetime-local', step: 1 });
  const to = h('input', { id: 'chart-to', name: 'to', type: 'datetime-local', step: 1 });
  const custom = h('fieldset', { id: 'chart-custom', class: 'inline', hidden: true },
    h('legend', {}, 'Custom range (local time)'),
    h('label', { for: 'chart-from' }, 'From'), from,
    h('label', { for: 'chart-to' }, 'To'), to);
  const aggregator = h('select', { id: 'chart-aggregator', name: 'aggregator' },
    ...AGGREGATORS.map((a) => h('option', { value: a, selected: a === 'avg' }, a === 'none' ? 'none (raw points)' : a)));
  const sampling = h('select', { id: 'chart-sampling', name: 'sampling' },
    h('option', { value: 'auto' }, 'automatic'),
    ...SAMPLINGS.map((sm, i) => h('option', { value: String(i) }, sm.label)));
  const plotArea = h('div', { id: 'chart', class: 'chart', role: 'img', 'aria-labelledby': 'chart-summary' });
  const summary = h('figcaption', { id: 'chart-summary', 'aria-live': 'polite' }, 'Loading the recorded fields…');
  const liveBadge = h('span', { id: 'chart-live', class: 'badge', hidden: true }, 'live');
  const figure = h('figure', { class: 'chart-figure', id: 'chart-figure' }, plotArea, summary);
  const form = h('form', { id: 'chart-form', class: 'controls', onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); void redraw(); } },
    h('div', {}, h('label', { for: 'chart-range' }, 'Time range'), range),
    h('div', {}, h('label', { for: 'chart-aggregator' }, 'Aggregator'), aggregator),
    h('div', {}, h('label', { for: 'chart-sampling' }, 'Sampling'), sampling),
    h('div', {}, h('button', { type: 'submit' }, 'Draw')),
    custom, fieldList);

  /** The custom range starts as the last hour, so switching to it shows something sensible to adjust. */
  const localInput = (/** @type {number} */ ms) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  from.value = localInput(Date.now() - 3_600_000);
  to.value = localInput(Date.now());

  range.addEventListener('change', () => {
    custom.hidden = range.value !== 'custom';
    void redraw();
  });
  for (const control of [aggregator, sampling, from, to]) control.addEventListener('change', () => void redraw());
  aggregator.addEventListener('change', () => (sampling.disabled = aggregator.value === 'none'));

  /** @type {string[]} every field with points */
  let fields = [];
  /** @type {Set<string>} the fields charted */
  const chosen = new Set();
  /** @type {Map<string, Point[]>} what the chart shows */
  let shown = new Map();
  /** @type {Span | undefined} */
  let span;
  /** @type {import('./time-range.js').Sampling | undefined} */
  let step;
  let lastKey = '';
  const chart = createChart(plotArea, signal);

  async function loadFields() {
    const reply = await feed(projectid, '/datapoints/query/tags', fieldsQuery(deviceid), signal);
    /** @type {string[]} */
    const found = [...(reply.queries?.[0]?.results?.[0]?.tags?.attr ?? [])].sort();
    const added = found.filter((f) => !fields.includes(f));
    if (added.length === 0) return;
    // The first fields are charted by default; a field that appears later is offered, not forced on the chart.
    for (const f of added) if (fields.length === 0 && chosen.size < DEFAULT_FIELDS) chosen.add(f);
    fields = found;
    fieldList.replaceChildren(h('legend', {}, 'Fields'), ...fields.map((f) => h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: 'field', value: f, checked: chosen.has(f), onchange: (/** @type {Event} */ e) => {
        if (/** @type {HTMLInputElement} */ (e.target).checked) chosen.add(f);
        else chosen.delete(f);
        void redraw();
      } }), f)));
  }

  /** The first and last point of the device, for the fitted range. */
  async function extent() {
    const reply = await feed(projectid, '/datapoints/query', extentQuery(deviceid), signal);
    const first = reply.queries?.[0]?.results?.[0]?.values?.[0]?.[0];
    const last = reply.queries?.[1]?.results?.[0]?.values?.[0]?.[0];
    return typeof first === 'number' && typeof last === 'number' ? { first, last } : undefined;
  }

  /**
   * The points of the charted fields from `start` to the span's end.
   * @param {number} start
   * @param {AbortSignal} mine
   */
  async function query(start, mine) {
    const agg = /** @type {import('./time-range.js').Aggregator} */ (aggregator.value);
    const sampled = /** @type {import('./time-range.js').Sampling} */ (step);
    const end = /** @type {Span} */ (span).end;
    const reply = await feed(projectid, '/datapoints/query',
      historyQuery({ deviceid, fields: [...chosen], start, end, aggregator: agg, sampling: sampled }), mine);
    return pointsByField(reply);
  }

  /** Draws what `shown` holds, and says it in words. */
  async function render() {
    if (!span) return;
    const series = [...chosen].sort().map((field) => ({ field, points: shown.get(field) ?? [] }));
    (await chart).draw(series, span);
    const facts = series.map(summarize);
    const agg = aggregator.value;
    const how = agg === 'none' ? 'raw points' : `${agg} per ${step?.label}`;
    const words = facts.map((f) => f.count === 0
      ? `${f.field}: no points`
      : `${f.field}: ${f.count} point${f.count === 1 ? '' : 's'}, lowest ${formatValue(/** @type {number} */ (f.min))}, ` +
        `highest ${formatValue(/** @type {number} */ (f.max))}, last ${formatValue(/** @type {number} */ (f.last))}` +
        (f.gaps > 0 ? `, ${f.gaps} gap${f.gaps === 1 ? '' : 's'}` : ''));
    summary.textContent = `${how} from ${formatTime(span.start)} to ${span.live ? 'now' : formatTime(span.end)}. ${words.join('; ')}.`;
    liveBadge.hidden = !span.live;
    Object.assign(figure.dataset, { state: 'drawn', live: String(span.live), aggregator: agg, sampling: agg === 'none' ? '' : step?.label ?? '' });
    figure.dataset.series = JSON.stringify(facts);
  }

  /** @type {AbortController | undefined} */
  let drawing;
  /** Everything again: the fields, the range, every point in it. */
  async function redraw() {
    // A newer draw, or leaving the page, cancels this one.
    drawing?.abort();
    drawing = new AbortController();
    const mine = AbortSignal.any([signal, drawing.signal]);
    try {
      await loadFields();
      if (chosen.size === 0) {
        figure.dataset.state = 'empty';
        summary.textContent = fields.length === 0
          ? 'No points recorded for this device yet: every shadow write of a number records one.'
          : 'Tick a field to chart it.';
        return;
      }
      const resolved = resolveRange(range.value, Date.now(), {
        custom: { start: new Date(from.value).getTime(), end: new Date(to.value).getTime() },
        extent: range.value === 'fit' ? await extent() : undefined,
      });
      if (!resolved) {
        summary.textContent = 'Choose a custom range whose end comes after its start.';
        return;
      }
      figure.dataset.state = 'loading';
      span = resolved;
      step = sampling.value === 'auto' ? autoSampling(span.end - span.start) : SAMPLINGS[Number(sampling.value)];
      shown = await query(span.start, mine);
      if (!mine.aborted) await render();
    } catch (err) {
      if (!mine.aborted) reportError(err);
    } finally {
      if (!mine.aborted) drawing = undefined;
    }
  }

  /** A range that ends at now moves on with the clock: a preset slides, the fitted range keeps its start. */
  function slide() {
    if (!span?.live) return;
    const now = Date.now();
    const preset = RANGES.find((r) => r.id === range.value);
    span = { ...span, end: now, start: preset ? now - preset.ms : span.start };
    const start = span.start;
    shown = new Map([...shown].map(([f, points]) => [f, points.filter(([t]) => t >= start)]));
  }

  let following = false;
  /**
   * The points written since the last one shown: from the time of the last point or bucket of each field (the
   * earliest of them), whose bucket may have grown since, replacing what was shown from there on.
   */
  async function follow() {
    if (!span || drawing || following) return;
    following = true;
    try {
      slide();
      const start = span.start;
      const since = Math.min(...[...chosen].map((f) => shown.get(f)?.at(-1)?.[0] ?? start));
      const added = await query(since, signal);
      shown = new Map([...chosen].map((f) => [f, [...(shown.get(f) ?? []).filter(([t]) => t < since), ...(added.get(f) ?? [])]]));
      await render();
    } finally {
      following = false;
    }
  }

  void redraw();
  return {
    elements: [h('h2', { id: 'history-heading' }, 'History ', liveBadge), form, figure],
    update(shadowKey) {
      if (lastKey === '') {
        lastKey = shadowKey;
        return;
      }
      // Busy: the next read (3 s on) finds the change still unseen and asks then.
      if (drawing || following) return;
      const changed = shadowKey !== lastKey;
      lastKey = shadowKey;
      const quiet = (/** @type {unknown} */ err) => { if (!signal.aborted) reportError(err); };
      if (changed && (chosen.size === 0 || (range.value === 'fit' && !span?.live))) {
        // The first points of a device, or new ones after a fitted range that had ended: fit again.
        void redraw();
      } else if (changed && span?.live) {
        void loadFields().then(follow).catch(quiet);
      } else if (span?.live) {
        // Nothing written: the time axis moves on all the same.
        slide();
        void render().catch(quiet);
      }
    },
  };
}
