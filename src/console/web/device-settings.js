// @ts-check
import { admin, ApiError } from './api.js';
import { datatagsPanel } from './datatags-panel.js';
import { formatTime, h } from './dom.js';
import { reportError } from './report.js';

/** The quotas of a project, in the order docs/automation.md lists them, with what each counts. */
const QUOTAS = [
  ['shadowOps', 'Shadow operations'],
  ['expressionRuns', 'Expression runs'],
  ['triggerRuns', 'Trigger runs'],
  ['messages', 'Messages'],
  ['apiCalls', 'API calls'],
];

/**
 * @typedef {object} TriggerList GET /v2/admin/devices/{deviceid}/triggers
 * @property {boolean} enabled
 * @property {{id: string, event: string, condition?: string, action: string | string[]}[]} trigger
 */

/**
 * @typedef {object} QuotaReport GET /v2/admin/projects/{projectid}/quotas
 * @property {string} month
 * @property {string} resetsAt
 * @property {Record<string, {used: number, limit: number | null}>} quotas
 */

/** `null` for a 404 of `code` (nothing set), `undefined` for a 204, the body otherwise. */
async function readOptional(/** @type {string} */ path, /** @type {string} */ code, /** @type {AbortSignal} */ signal) {
  try {
    return await admin('GET', path, { signal });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === code) return null;
    throw err;
  }
}

/**
 * A device's automation as its project sets it, read when the device is opened: its schema (or none of its own),
 * its triggers, and its project's quota usage this month. Editing stays with the admin API and the CLI.
 * @param {{deviceid: string, projectid: string, signal: AbortSignal}} device
 * @returns {HTMLElement}
 */
export function settingsPanel({ deviceid, projectid, signal }) {
  const base = `/v2/admin/devices/${encodeURIComponent(deviceid)}`;
  const schema = h('div', { id: 'device-schema' }, h('p', { class: 'meta' }, 'Loading…'));
  const triggers = h('div', { id: 'device-triggers' }, h('p', { class: 'meta' }, 'Loading…'));
  const quotas = h('div', { id: 'project-quotas' }, h('p', { class: 'meta' }, 'Loading…'));

  // `?optional=true`: a device without a schema of its own, the usual case, is a 204 rather than the API's 404, which
  // the browser would log as an error on every device page (issue 24 §4).
  readOptional(`${base}/schema?optional=true`, 'SCHEMA_NOT_FOUND', signal).then((body) => {
    schema.replaceChildren(body == null
      ? h('p', { id: 'schema-none', class: 'hint' }, 'No schema of its own: its group\'s default applies, if the group has one.')
      : h('pre', { id: 'schema-json', class: 'json', tabindex: 0 }, JSON.stringify(body, null, 2)));
  }, reportError);

  admin('GET', `${base}/triggers`, { signal }).then((/** @type {TriggerList} */ list) => {
    triggers.replaceChildren(list.trigger.length === 0
      ? h('p', { id: 'triggers-none', class: 'hint' }, 'No triggers.')
      : h('div', {},
        h('p', { class: 'meta' }, list.enabled ? 'Enabled.' : 'Disabled: none of them runs.'),
        h('ul', { id: 'triggers-list' }, ...list.trigger.map((t) => h('li', { 'data-trigger': t.id },
          h('code', {}, t.id), ` on ${t.event}`, t.condition ? ` when ${t.condition}` : '', ` → ${[t.action].flat().join(', ')}`)))));
  }, reportError);

  admin('GET', `/v2/admin/projects/${encodeURIComponent(projectid)}/quotas`, { signal }).then((/** @type {QuotaReport} */ report) => {
    quotas.replaceChildren(
      h('table', { id: 'quota-table' },
        h('caption', {}, `Project ${projectid}, ${report.month} (refills ${formatTime(Date.parse(report.resetsAt))})`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Quota'), h('th', { scope: 'col' }, 'Used'), h('th', { scope: 'col' }, 'Limit'))),
        h('tbody', {}, ...QUOTAS.map(([name, label]) => {
          const q = report.quotas[name] ?? { used: 0, limit: null };
          return h('tr', { 'data-quota': name }, h('th', { scope: 'row' }, label), h('td', { class: 'used' }, q.used),
            h('td', { class: 'limit' }, q.limit === null ? 'unlimited' : q.limit));
        }))));
  }, reportError);

  return h('section', { class: 'card', 'aria-labelledby': 'settings-heading' },
    h('h2', { id: 'settings-heading' }, 'Schema, triggers and quotas'),
    h('h3', {}, 'Schema'), schema,
    h('h3', {}, 'Datatags'), datatagsPanel({ deviceid, signal }),
    h('h3', {}, 'Triggers'), triggers,
    h('h3', {}, 'Quota usage'), quotas);
}
