// @ts-check
import { admin, ApiError } from './api.js';
import { managePanel } from './device-manage.js';
import { settingsPanel } from './device-settings.js';
import { devicesHref, groupHref, stateOf, statusBadge } from './devices-view.js';
import { connectionsPanel } from './connections-view.js';
import { desiredPanel } from './desired-view.js';
import { announce, formatTime, h } from './dom.js';
import { historyPanel } from './history-panel.js';
import { latestValues } from './latest-values.js';
import { shadowHistoryPanel } from './shadow-history.js';
import { every, reportError } from './report.js';

/** The device record and its shadow are read again this often. */
const POLL_MS = 3000;

/**
 * @typedef {object} ShadowReply
 * @property {string} deviceid
 * @property {Record<string, unknown>} data
 * @property {number} rev
 * @property {number} modified
 * @property {number} timestamp
 * @property {boolean} [applied] only in write replies
 * @property {{field: string, action: string, message: string}[]} [warnings] what the device's schema changed or dropped
 */

const pretty = (/** @type {unknown} */ value) => JSON.stringify(value, null, 2);

/**
 * One device: its record and live status, the latest value of each field, its shadow (view and merge edit), and the
 * history of its points as a chart that follows new ones.
 * @param {HTMLElement} main
 * @param {{deviceid: string}} params
 * @returns {() => void}
 */
export function deviceView(main, { deviceid }) {
  const abort = new AbortController();
  const { signal } = abort;
  const base = `/v2/admin/devices/${encodeURIComponent(deviceid)}`;

  const title = h('h1', { tabindex: -1 }, 'Device');
  const back = h('p', {}, h('a', { href: '#/devices' }, 'All devices'));
  const facts = h('dl', { class: 'facts', id: 'device-facts' });
  const shadowJson = h('pre', { id: 'shadow-json', class: 'json', tabindex: 0, 'aria-labelledby': 'shadow-heading' });
  const shadowMeta = h('p', { id: 'shadow-meta', class: 'meta' });
  const editor = h('textarea', { id: 'shadow-edit', rows: 8, spellcheck: 'false', 'aria-describedby': 'shadow-edit-help' });
  const editResult = h('p', { id: 'shadow-result', role: 'status' });
  const editError = h('p', { id: 'shadow-error', class: 'error', role: 'alert' });
  const history = h('section', { class: 'card', 'aria-labelledby': 'history-heading' });
  const latest = latestValues();
  const revisions = shadowHistoryPanel({ deviceid, signal });
  const manage = managePanel({ deviceid, signal, onChanged: (device) => showDevice(device) });
  const settings = h('div', { id: 'device-settings' });
  main.replaceChildren(
    back,
    title,
    facts,
    manage.element,
    h('section', { class: 'card', 'aria-labelledby': 'latest-heading' },
      h('h2', { id: 'latest-heading' }, 'Latest values'),
      latest.element),
    history,
    h('div', { class: 'columns' },
      h('section', { class: 'card', 'aria-labelledby': 'shadow-heading' },
        h('h2', { id: 'shadow-heading' }, 'Shadow'),
        shadowMeta,
        shadowJson),
      h('section', { class: 'card', 'aria-labelledby': 'edit-heading' },
        h('h2', { id: 'edit-heading' }, 'Merge edit'),
        h('form', { id: 'shadow-form', onsubmit: applyMerge },
          h('label', { for: 'shadow-edit' }, 'JSON merged into the shadow'),
          h('p', { id: 'shadow-edit-help', class: 'hint' },
            'A JSON object: objects merge member by member, other values replace, null deletes a member.'),
          editor,
          h('button', { type: 'submit' }, 'Apply merge'),
          editResult,
          editError))),
    desiredPanel({ deviceid, signal }).element,
    revisions.element,
    connectionsPanel({ deviceid, signal }).element,
    settings,
  );

  /** The editor follows the shadow until the operator types in it. */
  let edited = false;
  editor.addEventListener('input', () => (edited = true));
  let shownRev = -1;
  let panelsShown = false;
  /** @type {ReturnType<typeof historyPanel> | undefined} */
  let chart;

  /** @param {ShadowReply} shadow */
  function showShadow(shadow) {
    // Every read, so a live chart moves on with the clock; it asks for new points only when this key changes.
    chart?.update(`${shadow.rev}:${shadow.modified}:${shadow.timestamp}`);
    if (shadow.rev === shownRev) return;
    shownRev = shadow.rev;
    revisions.update(shadow.rev);
    latest.show(shadow.data, shadow.rev);
    shadowJson.textContent = pretty(shadow.data);
    shadowJson.dataset.rev = String(shadow.rev);
    shadowMeta.textContent = shadow.rev === 0
      ? 'Never written.'
      : `Revision ${shadow.rev}, written ${formatTime(shadow.modified)} (data time ${formatTime(shadow.timestamp)}).`;
    if (!edited) editor.value = pretty(shadow.data);
  }

  /** @param {import('./devices-view.js').DeviceRecord} device */
  function showDevice(device) {
    title.textContent = device.alias;
    document.title = `${device.alias} · openpie console`;
    const fact = (/** @type {string} */ term, /** @type {Node | string} */ value) => [h('dt', {}, term), h('dd', {}, value)];
    facts.replaceChildren(
      ...fact('Status', statusBadge(device.status)),
      ...fact('State', h('span', { id: 'device-state' }, stateOf(device))),
      ...fact('Project', h('a', { href: devicesHref(device.projectid) }, device.projectid)),
      ...fact('Group', h('a', { href: groupHref(device.projectid, device.groupid), id: 'group-messages-link' }, `${device.groupid} (live messages)`)),
      ...fact('Device ID', h('code', {}, device.deviceid)),
      ...(device.description ? fact('Description', device.description) : []),
    );
    manage.update(device);
    if (!panelsShown) {
      panelsShown = true;
      chart = historyPanel({ deviceid: device.deviceid, projectid: device.projectid, signal });
      history.replaceChildren(...chart.elements);
      settings.replaceChildren(settingsPanel({ deviceid: device.deviceid, projectid: device.projectid, signal }));
    }
  }

  /** @param {Event} event */
  async function applyMerge(event) {
    event.preventDefault();
    editResult.textContent = '';
    editError.textContent = '';
    /** @type {unknown} */
    let data;
    try {
      data = JSON.parse(editor.value);
    } catch (err) {
      editError.textContent = `Not JSON: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      editError.textContent = 'Expected a JSON object, such as {"temp": 21.5}.';
      return;
    }
    try {
      /** @type {ShadowReply} */
      const reply = await admin('PUT', `${base}/shadow`, { body: { data }, signal });
      edited = false;
      shownRev = -1;
      showShadow(reply);
      const warnings = (reply.warnings ?? []).map((w) => `${w.field} ${w.action}: ${w.message}`).join('; ');
      editResult.textContent = (reply.applied ? `Applied: revision ${reply.rev}.` : 'Not applied: the shadow is newer than this write.') +
        (warnings ? ` The schema: ${warnings}.` : '');
      announce(editResult.textContent);
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401) {
        editError.textContent = `${err.message} (${err.code})`;
      } else {
        reportError(err);
      }
    }
  }

  every(async () => {
    const [device, shadow] = await Promise.all([admin('GET', base, { signal }), admin('GET', `${base}/shadow`, { signal })]);
    showDevice(device);
    showShadow(shadow);
  }, POLL_MS, signal);

  return () => abort.abort();
}

