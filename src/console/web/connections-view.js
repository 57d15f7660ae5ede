// @ts-check
import { admin, ApiError } from './api.js';
import { announce, formatTime, h } from './dom.js';
import { every, reportError } from './report.js';

/** The connections are read again this often. */
const POLL_MS = 3000;

/**
 * @typedef {object} LiveConnection
 * @property {string} node
 * @property {'tcp' | 'tls' | 'ws' | 'wss'} transport
 * @property {number} version
 * @property {string} address
 * @property {string} connectedSince
 * @property {number} keepalive
 * @property {boolean} clean
 * @property {{filter: string, qos: number}[]} subscriptions
 * @property {number} [queued]
 * @property {number} [inFlight]
 */

/**
 * @typedef {object} ConnectionEvent
 * @property {string} at
 * @property {string} node
 * @property {'connected' | 'disconnected' | 'refused' | 'kicked'} kind
 * @property {string} [transport]
 * @property {number} [version]
 * @property {string} [address]
 * @property {string} [reason]
 * @property {string} [detail]
 */

/**
 * @typedef {object} DeviceConnections
 * @property {LiveConnection[]} connections
 * @property {ConnectionEvent[]} history
 * @property {{answered: string[], silent: string[]}} nodes
 */

/** MQTT's protocol level as people name the version. */
const versionName = (/** @type {number | undefined} */ level) => (level === 3 ? '3.1' : level === 4 ? '3.1.1' : level === 5 ? '5' : '');
const time = (/** @type {string} */ iso) => formatTime(Date.parse(iso));
const count = (/** @type {number | undefined} */ n) => (n === undefined ? '?' : String(n));

/** @param {string[]} headings */
const head = (headings) => h('thead', {}, h('tr', {}, ...headings.map((text) => h('th', { scope: 'col' }, text))));

/**
 * A device's MQTT connections on every node (GET /v2/admin/devices/{deviceid}/connections): the live ones, with a
 * kick button, and the recent connects, disconnects with their reason, refusals and kicks (docs/operations.md
 * "Connection inspector").
 * @param {{deviceid: string, signal: AbortSignal}} options
 * @returns {{element: HTMLElement}}
 */
export function connectionsPanel({ deviceid, signal }) {
  const base = `/v2/admin/devices/${encodeURIComponent(deviceid)}`;
  const live = h('tbody');
  const history = h('tbody');
  const none = h('p', { id: 'connections-none', class: 'meta' }, 'Not connected.');
  const nodes = h('p', { id: 'connections-nodes', class: 'meta' });
  const reason = h('input', { id: 'kick-reason', name: 'reason', maxlength: 200, autocomplete: 'off' });
  const result = h('p', { id: 'kick-result', role: 'status' });
  const error = h('p', { id: 'kick-error', class: 'error', role: 'alert' });
  const element = h('section', { class: 'card', id: 'connections', 'aria-labelledby': 'connections-heading' },
    h('h2', { id: 'connections-heading' }, 'Connections'),
    nodes,
    h('div', { class: 'table-scroll' },
      h('table', { id: 'connections-live', class: 'latest' },
        h('caption', { class: 'visually-hidden' }, 'Live MQTT connections'),
        head(['Node', 'Transport', 'MQTT', 'Address', 'Since', 'Keepalive', 'Subscriptions', 'Queued', 'In flight']),
        live),
      none),
    h('form', { id: 'kick-form', onsubmit: kick },
      h('label', { for: 'kick-reason' }, 'Reason (optional, told to MQTT 5 clients)'),
      reason,
      h('button', { type: 'submit', id: 'kick-button', class: 'danger' }, 'Kick'),
      h('p', { class: 'hint' }, 'Closes its sessions on every node; it may connect again at once (disable or ban it to keep it out).'),
      result,
      error),
    h('h3', { id: 'connection-history-heading' }, 'Recent history'),
    h('div', { class: 'table-scroll' },
      h('table', { id: 'connections-history', class: 'latest', 'aria-labelledby': 'connection-history-heading' },
        head(['Time', 'Node', 'Event', 'Reason', 'Detail', 'Transport', 'Address']),
        history)));

  /** @param {DeviceConnections} answer */
  function show(answer) {
    live.replaceChildren(...answer.connections.map((c) => h('tr', { 'data-transport': c.transport },
      h('td', {}, c.node),
      h('td', {}, c.transport),
      h('td', {}, versionName(c.version)),
      h('td', {}, h('code', {}, c.address)),
      h('td', {}, time(c.connectedSince)),
      h('td', {}, c.keepalive === 0 ? 'none' : `${c.keepalive} s`),
      h('td', {}, ...c.subscriptions.map((s) => h('div', {}, h('code', {}, s.filter), ` QoS ${s.qos}`))),
      h('td', {}, count(c.queued)),
      h('td', {}, count(c.inFlight)))));
    none.hidden = answer.connections.length > 0;
    history.replaceChildren(...answer.history.map((e) => h('tr', { 'data-kind': e.kind },
      h('td', {}, time(e.at)),
      h('td', {}, e.node),
      h('td', {}, e.kind),
      h('td', {}, e.reason ?? ''),
      h('td', {}, e.detail ?? ''),
      h('td', {}, e.transport ? `${e.transport} ${versionName(e.version)}` : ''),
      h('td', {}, e.address ?? ''))));
    const silent = answer.nodes.silent.length > 0 ? ` No answer from ${answer.nodes.silent.join(', ')}: their part is missing.` : '';
    nodes.textContent = `From ${answer.nodes.answered.length === 1 ? 'node' : 'nodes'} ${answer.nodes.answered.join(', ')}.${silent}`;
  }

  const refresh = async () => show(await admin('GET', `${base}/connections`, { signal }));

  /** @param {Event} event */
  async function kick(event) {
    event.preventDefault();
    result.textContent = '';
    error.textContent = '';
    try {
      /** @type {{reason: string}} */
      const kicked = await admin('POST', `${base}/kick`, { body: reason.value ? { reason: reason.value } : {}, signal });
      result.textContent = `Kicked (${kicked.reason}).`;
      announce(result.textContent);
      await refresh();
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401) error.textContent = `Not kicked: ${err.message} (${err.code})`;
      else reportError(err);
    }
  }

  every(refresh, POLL_MS, signal);
  return { element };
}
