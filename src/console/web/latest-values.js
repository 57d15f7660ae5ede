// @ts-check
import { formatValue } from './chart.js';
import { h } from './dom.js';

/**
 * The shadow's members as dotted paths, the way the data store names a field (`{"env":{"temp":21}}` is `env.temp`,
 * docs/data-store.md); arrays are values, not paths.
 * @param {Record<string, unknown>} data
 * @param {string} [prefix]
 * @returns {[string, unknown][]}
 */
export function flattenFields(data, prefix = '') {
  return Object.entries(data).flatMap(([key, value]) => (typeof value === 'object' && value !== null && !Array.isArray(value)
    ? flattenFields(/** @type {Record<string, unknown>} */ (value), `${prefix}${key}.`)
    : [/** @type {[string, unknown]} */ ([`${prefix}${key}`, value])]));
}

/** @param {unknown} value */
const shown = (value) => (typeof value === 'number' ? formatValue(value) : typeof value === 'string' ? value : JSON.stringify(value));

/** @param {unknown} value */
const kind = (value) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * A table of every field of the shadow with its latest value: numbers and booleans are the fields the chart can draw.
 * @returns {{element: HTMLElement, show: (data: Record<string, unknown>, rev: number) => void}}
 */
export function latestValues() {
  const body = h('tbody');
  const empty = h('p', { class: 'meta', id: 'latest-empty' }, 'No fields yet.');
  const table = h('table', { id: 'latest-values', class: 'latest' },
    h('caption', { class: 'visually-hidden' }, 'Latest value of each field'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Value'), h('th', { scope: 'col' }, 'Type'))),
    body);
  /** @type {Map<string, string>} */
  let before = new Map();
  return {
    element: h('div', { class: 'table-scroll' }, table, empty),
    show(data, rev) {
      const rows = flattenFields(data).sort(([a], [b]) => a.localeCompare(b));
      const now = new Map(rows.map(([field, value]) => [field, JSON.stringify(value)]));
      body.replaceChildren(...rows.map(([field, value]) => h('tr', {
        'data-field': field,
        // A value that changed since the last read is marked, so the eye finds what moved.
        class: before.size > 0 && before.get(field) !== now.get(field) ? 'changed' : undefined,
      }, h('th', { scope: 'row' }, h('code', {}, field)), h('td', { class: 'value' }, shown(value)), h('td', { class: 'meta' }, kind(value)))));
      before = now;
      table.dataset.rev = String(rev);
      empty.hidden = rows.length > 0;
    },
  };
}
