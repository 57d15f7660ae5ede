// @ts-check
import { admin } from './api.js';
import { announce, formatTime, h } from './dom.js';
import { every } from './report.js';

/**
 * How often the device list is read again. Polling the admin list, rather than a stream, keeps the service free of
 * per-viewer state for presence; one small request every 2 s per open console is cheap.
 */
export const POLL_MS = 2000;

/** Devices per page: the service pages (GET /v2/admin/devices?limit=&offset=), so a fleet of thousands stays light. */
export const PAGE_SIZE = 50;

/** A search waits this long after the last key, so typing does not send a request per letter. */
const SEARCH_DELAY_MS = 300;

/**
 * @typedef {object} DeviceRecord
 * @property {string} deviceid
 * @property {string} alias
 * @property {string} projectid
 * @property {string} groupid
 * @property {boolean} enabled
 * @property {boolean} banned
 * @property {string} [description]
 * @property {0 | 1} status
 */

/**
 * @typedef {object} ProjectSummary one entry of GET /v2/admin/projects
 * @property {string} projectid
 * @property {number} devices
 * @property {number} online
 * @property {{groupid: string, devices: number, online: number}[]} groups
 */

export const deviceHref = (/** @type {string} */ deviceid) => `#/device/${encodeURIComponent(deviceid)}`;
export const groupHref = (/** @type {string} */ projectid, /** @type {string} */ groupid) =>
  `#/messages/${encodeURIComponent(projectid)}/${encodeURIComponent(groupid)}`;
export const devicesHref = (/** @type {string} */ projectid, /** @type {string | undefined} */ groupid = undefined) =>
  `#/devices/${encodeURIComponent(projectid)}${groupid === undefined ? '' : `/${encodeURIComponent(groupid)}`}`;

/** Every project with its groups and counts. */
export async function projectsOf(/** @type {AbortSignal} */ signal) {
  /** @type {{projects: ProjectSummary[]}} */
  const { projects } = await admin('GET', '/v2/admin/projects', { signal });
  return projects;
}

/** "online"/"offline" in words, not only in colour. */
export function statusBadge(/** @type {0 | 1} */ status) {
  const badge = h('span', { class: `badge ${status === 1 ? 'online' : 'offline'}`, 'data-status': status }, status === 1 ? 'online' : 'offline');
  return badge;
}

/** @param {DeviceRecord} d */
export const stateOf = (d) => (d.banned ? 'banned' : d.enabled ? 'enabled' : 'disabled');

/**
 * The devices of a project (or one of its groups) with their live status, a page at a time, with a search. Rows are
 * updated in place, so a link that has the keyboard focus keeps it across refreshes.
 * @param {HTMLElement} main
 * @param {{projectid?: string, groupid?: string}} params
 * @returns {() => void}
 */
export function devicesView(main, { projectid, groupid }) {
  const abort = new AbortController();
  const { signal } = abort;
  let current = projectid;
  let offset = 0;
  let search = '';
  /** @type {Map<string, {tr: HTMLTableRowElement, device: DeviceRecord}>} */
  const rows = new Map();

  const picker = h('select', { id: 'project', onchange: () => (location.hash = devicesHref(picker.value)) });
  const groupPicker = h('select', { id: 'group', onchange: () => (location.hash = devicesHref(current ?? '', groupPicker.value || undefined)) });
  const searchBox = h('input', { id: 'device-search', type: 'search', placeholder: 'alias or device id', autocomplete: 'off', spellcheck: 'false' });
  const prev = h('button', { type: 'button', id: 'page-prev', class: 'secondary', onclick: () => turn(-PAGE_SIZE) }, 'Previous');
  const next = h('button', { type: 'button', id: 'page-next', class: 'secondary', onclick: () => turn(PAGE_SIZE) }, 'Next');
  const pageInfo = h('span', { id: 'page-info', 'aria-live': 'polite' });
  const tbody = h('tbody');
  const caption = h('caption');
  const updated = h('p', { id: 'devices-updated', class: 'meta' });
  const empty = h('p', { id: 'no-devices', class: 'hint', hidden: true },
    'No devices here. Make one with "New device", POST /v2/admin/devices or "openpie devices create".');
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
    h('div', { class: 'toolbar' },
      h('label', { for: 'project' }, 'Project'), picker,
      h('label', { for: 'group' }, 'Group'), groupPicker,
      h('label', { for: 'device-search' }, 'Search'), searchBox,
      h('a', { id: 'new-device-link', class: 'button-link', href: `#/new-device${current ? `/${encodeURIComponent(current)}` : ''}` }, 'New device')),
    updated,
    empty,
    table,
    h('div', { class: 'pager' }, prev, pageInfo, next),
  );

  /** @param {ProjectSummary[]} projects */
  function showProjects(projects) {
    const names = projects.map((p) => p.projectid);
    // A project named in the address but without devices (yet) stays selectable.
    if (current !== undefined && !names.includes(current)) names.push(current);
    names.sort();
    // Options are replaced only when the list changed, so an open picker is not disturbed.
    if ([...picker.options].map((o) => o.value).join('\n') !== names.join('\n')) {
      picker.replaceChildren(...names.map((p) => h('option', { value: p, selected: p === current }, p)));
    }
    picker.disabled = names.length === 0;
    const groups = projects.find((p) => p.projectid === current)?.groups.map((g) => g.groupid) ?? [];
    if (groupid !== undefined && !groups.includes(groupid)) groups.push(groupid);
    const options = ['', ...groups];
    if ([...groupPicker.options].map((o) => o.value).join('\n') !== options.join('\n')) {
      groupPicker.replaceChildren(...options.map((g) => h('option', { value: g, selected: g === (groupid ?? '') }, g === '' ? 'All groups' : g)));
    }
  }

  /** @param {DeviceRecord} d */
  function rowOf(d) {
    return h('tr', { 'data-deviceid': d.deviceid },
      h('td', {}, h('a', { href: deviceHref(d.deviceid) }, d.alias)),
      h('td', {}, h('a', { href: groupHref(d.projectid, d.groupid), title: `Messages of group ${d.groupid}` }, d.groupid)),
      h('td', {}, statusBadge(d.status)),
      h('td', {}, stateOf(d)),
      h('td', {}, h('code', {}, d.deviceid)));
  }

  /** @param {DeviceRecord[]} devices @param {number} total */
  function showDevices(devices, total) {
    const seen = new Set();
    /** @type {ChildNode | null} */
    let at = tbody.firstChild;
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
      if (tr !== at) tbody.insertBefore(tr, at);
      at = tr.nextSibling;
    }
    for (const [id, row] of rows) {
      if (seen.has(id)) continue;
      row.tr.remove();
      rows.delete(id);
    }
    caption.textContent = current === undefined ? 'Devices' : `Devices of project ${current}${groupid === undefined ? '' : `, group ${groupid}`}`;
    empty.hidden = devices.length > 0;
    table.hidden = devices.length === 0;
    pageInfo.textContent = total === 0 ? 'No devices' : `Devices ${offset + 1}–${offset + devices.length} of ${total}`;
    pageInfo.dataset.total = String(total);
    prev.disabled = offset === 0;
    next.disabled = offset + PAGE_SIZE >= total;
    updated.textContent = `Updated ${formatTime(Date.now())}; refreshed every ${POLL_MS / 1000} s.`;
  }

  async function refresh() {
    const projects = await projectsOf(signal);
    current ??= projects[0]?.projectid;
    showProjects(projects);
    if (current === undefined) return showDevices([], 0);
    const query = new URLSearchParams({ projectid: current, limit: String(PAGE_SIZE), offset: String(offset) });
    if (groupid !== undefined) query.set('groupid', groupid);
    if (search !== '') query.set('q', search);
    /** @type {{devices: DeviceRecord[], total: number}} */
    const page = await admin('GET', `/v2/admin/devices?${query}`, { signal });
    // The list shrank under the last page (devices deleted, a narrower search): go back to a page that has devices.
    if (page.devices.length === 0 && offset > 0 && page.total > 0) {
      offset = Math.floor((page.total - 1) / PAGE_SIZE) * PAGE_SIZE;
      return refresh();
    }
    showDevices(page.devices, page.total);
  }

  /** @param {number} by */
  function turn(by) {
    offset = Math.max(0, offset + by);
    void refresh().catch(() => {});
  }

  /** @type {number | undefined} */
  let typing;
  searchBox.addEventListener('input', () => {
    window.clearTimeout(typing);
    typing = window.setTimeout(() => {
      search = searchBox.value.trim().slice(0, 128);
      offset = 0;
      void refresh().catch(() => {});
    }, SEARCH_DELAY_MS);
  });

  every(refresh, POLL_MS, signal);
  return () => {
    window.clearTimeout(typing);
    abort.abort();
  };
}
