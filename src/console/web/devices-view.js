// @ts-check
import { admin } from './api.js';
import { announce, formatTime, h } from './dom.js';
import { every } from './report.js';

/**
 * How often the device list is read again. Polling the admin list, rather than a stream, keeps the service free of
 * per-viewer state for presence; one small request every 2 s per open console is cheap.
 */
export const POLL_MS = 2000;

/**
 * @typedef {object} DeviceRecord
 * @property {string} deviceid
 * @property {string} alias
 * @property {string} projectid
 * @property {string} groupid
 * @property {boolean} enabled
 * @property {boolean} banned
 * @property {0 | 1} status
 */

export const deviceHref = (/** @type {string} */ deviceid) => `#/device/${encodeURIComponent(deviceid)}`;
export const groupHref = (/** @type {string} */ projectid, /** @type {string} */ groupid) =>
  `#/messages/${encodeURIComponent(projectid)}/${encodeURIComponent(groupid)}`;

/** "online"/"offline" in words, not only in colour. */
export function statusBadge(/** @type {0 | 1} */ status) {
  const badge = h('span', { class: `badge ${status === 1 ? 'online' : 'offline'}`, 'data-status': status }, status === 1 ? 'online' : 'offline');
  return badge;
}

/** @param {DeviceRecord} d */
const stateOf = (d) => (d.banned ? 'banned' : d.enabled ? 'enabled' : 'disabled');

/**
 * The devices of one project with their live status. Rows are updated in place, so a link that has the keyboard
 * focus keeps it across refreshes.
 * @param {HTMLElement} main
 * @param {{projectid?: string}} params
 * @returns {() => void}
 */
export function devicesView(main, { projectid }) {
  const abort = new AbortController();
  const { signal } = abort;
  let current = projectid;
  /** @type {Map<string, {tr: HTMLTableRowElement, device: DeviceRecord}>} */
  const rows = new Map();

  const picker = h('select', { id: 'project', onchange: () => (location.hash = `#/devices/${encodeURIComponent(picker.value)}`) });
  const tbody = h('tbody');
  const caption = h('caption');
  const updated = h('p', { id: 'devices-updated', class: 'meta' });
  const empty = h('p', { id: 'no-devices', class: 'hint', hidden: true },
    'No devices yet. Provision one with POST /v2/admin/devices or "openpie devices create".');
  const table = h('table', { id: 'devices' },
    caption,
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Alias'),
      h('th', { scope: 'col' }, 'Group'),
      h('th', { scope: 'col' }, 'Status'),
      h('th', { scope: 'col' }, 'State'),
      h('th', { scope: 'col' }, 'Device ID'))),
    tbody);

  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'Devices'),
    h('div', { class: 'toolbar' }, h('label', { for: 'project' }, 'Project'), picker),
    updated,
    empty,
    table,
  );

  /** @param {string[]} projects */
  function showProjects(projects) {
    // Options are replaced only when the list changed, so an open picker is not disturbed.
    const shown = [...picker.options].map((o) => o.value);
    if (shown.join('\n') === projects.join('\n')) return;
    const options = projects.map((p) => h('option', { value: p, selected: p === current }, p));
    picker.replaceChildren(...options);
    picker.disabled = projects.length === 0;
  }

  /** @param {DeviceRecord} d */
  function rowOf(d) {
    const tr = h('tr', { 'data-deviceid': d.deviceid },
      h('td', {}, h('a', { href: deviceHref(d.deviceid) }, d.alias)),
      h('td', {}, h('a', { href: groupHref(d.projectid, d.groupid), title: `Messages of group ${d.groupid}` }, d.groupid)),
      h('td', {}, statusBadge(d.status)),
      h('td', {}, stateOf(d)),
      h('td', {}, h('code', {}, d.deviceid)));
    return tr;
  }

  /** @param {DeviceRecord[]} devices */
  function showDevices(devices) {
    const seen = new Set();
    /** @type {ChildNode | null} */
    let next = tbody.firstChild;
    for (const d of devices) {
      seen.add(d.deviceid);
      const known = rows.get(d.deviceid);
      let tr;
      if (!known || known.device.alias !== d.alias || known.device.groupid !== d.groupid) {
        tr = rowOf(d);
        if (known) known.tr.replaceWith(tr);
      } else {
        tr = known.tr;
        if (known.device.status !== d.status) {
          tr.cells[2].replaceChildren(statusBadge(d.status));
          announce(`${d.alias} is now ${d.status === 1 ? 'online' : 'offline'}`);
        }
        tr.cells[3].textContent = stateOf(d);
      }
      tr.dataset.status = String(d.status);
      rows.set(d.deviceid, { tr, device: d });
      if (tr !== next) tbody.insertBefore(tr, next);
      next = tr.nextSibling;
    }
    for (const [id, row] of rows) {
      if (seen.has(id)) continue;
      row.tr.remove();
      rows.delete(id);
    }
    caption.textContent = current ? `Devices of project ${current}` : 'Devices';
    empty.hidden = devices.length > 0;
    table.hidden = devices.length === 0;
    updated.textContent = `Updated ${formatTime(Date.now())}; refreshed every ${POLL_MS / 1000} s.`;
  }

  /** The whole list, for the project picker; after that only the chosen project's devices are read. */
  async function loadProjects() {
    /** @type {{devices: DeviceRecord[]}} */
    const { devices } = await admin('GET', '/v2/admin/devices', { signal });
    const projects = new Set(devices.map((d) => d.projectid));
    current ??= [...projects].sort()[0];
    // A project named in the address but without devices (yet) stays selectable.
    if (current !== undefined) projects.add(current);
    showProjects([...projects].sort());
    showDevices(devices.filter((d) => d.projectid === current));
  }

  let first = true;
  every(async () => {
    if (first) {
      first = false;
      await loadProjects();
      return;
    }
    if (current === undefined) return loadProjects();
    /** @type {{devices: DeviceRecord[]}} */
    const { devices } = await admin('GET', `/v2/admin/devices?projectid=${encodeURIComponent(current)}`, { signal });
    showDevices(devices);
  }, POLL_MS, signal);
  // Projects made since the page opened show up when the picker is opened.
  picker.addEventListener('focus', () => void loadProjects().catch(() => {}));

  return () => abort.abort();
}
