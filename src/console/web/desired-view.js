// @ts-check
import { admin } from './api.js';
import { announce, formatTime, h } from './dom.js';
import { every, runShowingRefusal } from './report.js';

/** The desired state is read again this often, as the shadow is. */
const POLL_MS = 3000;

/**
 * @typedef {object} DesiredReply GET/PUT /v2/admin/devices/{deviceid}/shadow/desired (docs/device-api.md "Desired state")
 * @property {Record<string, unknown>} desired
 * @property {Record<string, unknown>} delta
 * @property {number} rev
 * @property {number} datarev
 * @property {number} modified
 * @property {{field: string, action: string, message: string}[]} [warnings]
 */

const isObject = (/** @type {unknown} */ v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every leaf of a desired document with its path (`config.rate`): objects are walked member by member, as the delta
 * compares them; arrays and scalars are leaves.
 * @param {Record<string, unknown>} doc
 * @param {string[]} [path]
 * @returns {{path: string[], value: unknown}[]}
 */
function leavesOf(doc, path = []) {
  return Object.entries(doc).flatMap(([key, value]) =>
    isObject(value) && Object.keys(/** @type {object} */ (value)).length > 0
      ? leavesOf(/** @type {Record<string, unknown>} */ (value), [...path, key])
      : [{ path: [...path, key], value }]);
}

/** @param {unknown} doc @param {string[]} path @returns {{found: boolean, value?: unknown}} */
function at(doc, path) {
  let here = doc;
  for (const key of path) {
    if (!isObject(here) || !Object.hasOwn(/** @type {object} */ (here), key)) return { found: false };
    here = /** @type {Record<string, unknown>} */ (here)[key];
  }
  return { found: true, value: here };
}

const shown = (/** @type {{found: boolean, value?: unknown}} */ v) => (v.found ? JSON.stringify(v.value) : '—');

/**
 * The device's desired state beside what it reports (issue 25 §5): one row per desired field with its desired and
 * reported value, the fields still in the delta marked (in words, not by colour alone); and an editor that merges JSON
 * into the desired document.
 * @param {{deviceid: string, signal: AbortSignal}} device
 * @returns {{element: HTMLElement}}
 */
export function desiredPanel({ deviceid, signal }) {
  const base = `/v2/admin/devices/${encodeURIComponent(deviceid)}`;
  const meta = h('p', { id: 'desired-meta', class: 'meta' }, 'Loading the desired state…');
  const rows = h('tbody', { id: 'desired-rows' });
  const editor = h('textarea', { id: 'desired-edit', rows: 5, spellcheck: 'false', 'aria-describedby': 'desired-edit-help' }, '{}');
  const result = h('p', { id: 'desired-result', role: 'status' });
  const error = h('p', { id: 'desired-error', class: 'error', role: 'alert' });
  const element = h('section', { class: 'card', 'aria-labelledby': 'desired-heading' },
    h('h2', { id: 'desired-heading' }, 'Desired state'),
    meta,
    h('table', { id: 'desired-table' },
      h('caption', {}, 'Desired against reported; fields still to do are marked "pending"'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Desired'), h('th', { scope: 'col' }, 'Reported'), h('th', { scope: 'col' }, 'State'))),
      rows),
    h('form', { id: 'desired-form', onsubmit: (/** @type {Event} */ event) => void apply(event) },
      h('label', { for: 'desired-edit' }, 'JSON merged into the desired state'),
      h('p', { id: 'desired-edit-help', class: 'hint' },
        'A JSON object: objects merge member by member, other values replace, null deletes a member. The device is sent what differs from its data.'),
      editor,
      h('button', { type: 'submit' }, 'Apply to desired'),
      result,
      error));

  /** @param {DesiredReply} reply @param {Record<string, unknown>} reported */
  function show(reply, reported) {
    const pending = Object.keys(reply.delta).length > 0;
    meta.textContent = reply.rev === 0
      ? 'No desired state: nothing is asked of the device.'
      : `Revision ${reply.rev}, written ${formatTime(reply.modified)}. ${pending ? 'The device has not reported every desired value yet.' : 'The device reports every desired value.'}`;
    rows.replaceChildren(...leavesOf(reply.desired).map(({ path, value }) => {
      const inDelta = at(reply.delta, path).found;
      return h('tr', { class: inDelta ? 'delta' : undefined, 'data-field': path.join('.') },
        h('th', { scope: 'row' }, h('code', {}, path.join('.'))),
        h('td', {}, h('code', {}, JSON.stringify(value))),
        h('td', {}, h('code', {}, shown(at(reported, path)))),
        h('td', {}, inDelta ? h('span', { class: 'badge pending' }, 'pending') : 'reported'));
    }));
  }

  async function refresh() {
    const [reply, shadow] = await Promise.all([admin('GET', `${base}/shadow/desired`, { signal }), admin('GET', `${base}/shadow`, { signal })]);
    show(reply, shadow.data);
  }

  /** @param {Event} event */
  async function apply(event) {
    event.preventDefault();
    await runShowingRefusal(result, error, 'Not applied', async () => {
      /** @type {unknown} */
      let data;
      try {
        data = JSON.parse(editor.value);
      } catch (err) {
        error.textContent = `Not JSON: ${err instanceof Error ? err.message : String(err)}`;
        return;
      }
      if (!isObject(data)) {
        error.textContent = 'Expected a JSON object, such as {"led": "on"}.';
        return;
      }
      /** @type {DesiredReply} */
      const reply = await admin('PUT', `${base}/shadow/desired`, { body: { data }, signal });
      await refresh();
      const warnings = (reply.warnings ?? []).map((w) => `${w.field} ${w.action}: ${w.message}`).join('; ');
      result.textContent = `Desired state at revision ${reply.rev}; ${Object.keys(reply.delta).length} field(s) pending.` +
        (warnings ? ` The schema: ${warnings}.` : '');
      announce(result.textContent);
    });
  }

  every(refresh, POLL_MS, signal);
  return { element };
}
