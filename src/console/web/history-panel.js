// @ts-check
import { feed } from './api.js';
import { CHART_SIZE, chartModel, drawChart, formatValue } from './chart.js';
import { formatTime, h, s } from './dom.js';
import { reportError } from './report.js';
import { AGGREGATORS, autoSampling, DEFAULT_RANGE, fieldsQuery, historyQuery, RANGES, resolveRange, SAMPLINGS } from './time-range.js';

/**
 * The history of a device's points as a line chart, from the data-store API with a user token of its project:
 * a field, a time range (a preset or custom), an aggregator and its sampling.
 * @param {{deviceid: string, projectid: string, signal: AbortSignal}} device
 * @returns {HTMLElement[]} the panel's content
 */
export function historyPanel({ deviceid, projectid, signal }) {
  const field = h('select', { id: 'chart-field', name: 'field' });
  const range = h('select', { id: 'chart-range', name: 'range' },
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
  const svg = s('svg', {
    id: 'chart', class: 'chart', role: 'img', 'aria-labelledby': 'chart-summary',
    viewBox: `0 0 ${CHART_SIZE.width} ${CHART_SIZE.height}`,
  });
  const summary = h('figcaption', { id: 'chart-summary', 'aria-live': 'polite' }, 'Loading the recorded fields…');
  const form = h('form', { id: 'chart-form', class: 'controls', onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); void loadFields().then(draw, reportError); } },
    h('div', {}, h('label', { for: 'chart-field' }, 'Field'), field),
    h('div', {}, h('label', { for: 'chart-range' }, 'Time range'), range),
    h('div', {}, h('label', { for: 'chart-aggregator' }, 'Aggregator'), aggregator),
    h('div', {}, h('label', { for: 'chart-sampling' }, 'Sampling'), sampling),
    h('div', {}, h('button', { type: 'submit' }, 'Draw')),
    custom);

  /** The custom range starts as the last hour, so switching to it shows something sensible to adjust. */
  const localInput = (/** @type {number} */ ms) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  from.value = localInput(Date.now() - 3_600_000);
  to.value = localInput(Date.now());

  range.addEventListener('change', () => {
    custom.hidden = range.value !== 'custom';
    void draw();
  });
  for (const control of [field, aggregator, sampling, from, to]) control.addEventListener('change', () => void draw());
  aggregator.addEventListener('change', () => (sampling.disabled = aggregator.value === 'none'));

  async function loadFields() {
    const reply = await feed(projectid, '/datapoints/query/tags', fieldsQuery(deviceid), signal);
    /** @type {string[]} */
    const fields = reply.queries?.[0]?.results?.[0]?.tags?.attr ?? [];
    const chosen = field.value;
    field.replaceChildren(...fields.map((f) => h('option', { value: f, selected: f === chosen }, f)));
    field.disabled = fields.length === 0;
  }

  /** @type {AbortController | undefined} */
  let drawing;
  async function draw() {
    // A newer draw, or leaving the page, cancels this one.
    drawing?.abort();
    drawing = new AbortController();
    const mine = AbortSignal.any([signal, drawing.signal]);
    try {
      if (field.value === '') {
        svg.replaceChildren();
        svg.dataset.state = 'empty';
        summary.textContent = 'No points recorded for this device yet: every shadow write of a number records one.';
        return;
      }
      const span = resolveRange(range.value, Date.now(), { start: new Date(from.value).getTime(), end: new Date(to.value).getTime() });
      if (!span) {
        summary.textContent = 'Choose a custom range whose end comes after its start.';
        return;
      }
      const agg = /** @type {import('./time-range.js').Aggregator} */ (aggregator.value);
      const step = sampling.value === 'auto' ? autoSampling(span.end - span.start) : SAMPLINGS[Number(sampling.value)];
      svg.dataset.state = 'loading';
      const reply = await feed(projectid, '/datapoints/query', historyQuery({ deviceid, attr: field.value, ...span, aggregator: agg, sampling: step }), mine);
      /** @type {[number, number][]} */
      const points = reply.queries?.[0]?.results?.[0]?.values ?? [];
      const model = chartModel(points, { ...span, tzOffsetMs: -new Date().getTimezoneOffset() * 60_000 });
      const how = agg === 'none' ? 'raw points' : `${agg} per ${step.label}`;
      const text = model.count === 0
        ? `No points of ${field.value} from ${formatTime(span.start)} to ${formatTime(span.end)}.`
        : `${model.count} point${model.count === 1 ? '' : 's'} of ${field.value} (${how}) from ${formatTime(span.start)} to ${formatTime(span.end)}; ` +
          `lowest ${formatValue(model.min)}, highest ${formatValue(model.max)}.`;
      drawChart(svg, model, text);
      Object.assign(svg.dataset, { state: 'drawn', field: field.value, aggregator: agg, sampling: agg === 'none' ? '' : step.label });
      summary.textContent = text;
    } catch (err) {
      if (!mine.aborted) reportError(err);
    }
  }

  void loadFields().then(draw, reportError);
  return [h('h2', { id: 'history-heading' }, 'History'), form, h('figure', { class: 'chart-figure' }, svg, summary)];
}
