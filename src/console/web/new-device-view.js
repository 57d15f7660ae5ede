// @ts-check
import { admin, ApiError } from './api.js';
import { credentialsPanel } from './credentials.js';
import { deviceHref, projectsOf } from './devices-view.js';
import { announce, h } from './dom.js';
import { reportError } from './report.js';

/**
 * Provisions a device (POST /v2/admin/devices) and shows its credentials once, with copy buttons and a ready
 * mosquitto_sub line.
 * @param {HTMLElement} main
 * @param {{projectid?: string}} params the project to suggest
 * @returns {() => void}
 */
export function newDeviceView(main, { projectid }) {
  const abort = new AbortController();
  const { signal } = abort;
  const field = (/** @type {string} */ id, /** @type {string} */ label, /** @type {Record<string, string | boolean>} */ attrs = {}) => {
    const input = h('input', { id, name: id, autocomplete: 'off', spellcheck: 'false', ...attrs });
    return { input, row: h('div', {}, h('label', { for: id }, label), input) };
  };
  const projects = h('datalist', { id: 'known-projects' });
  const groups = h('datalist', { id: 'known-groups' });
  const project = field('new-project', 'Project', { required: true, list: 'known-projects', value: projectid ?? '' });
  const group = field('new-group', 'Group', { required: true, list: 'known-groups' });
  const alias = field('new-alias', 'Alias (unique in its group)', { required: true, maxlength: '128' });
  const description = field('new-description', 'Description (optional)', { maxlength: '1024' });
  // Credentials a device already has (moving from NETPIE): each one left empty is made by the service.
  const own = {
    deviceid: field('new-deviceid', 'ClientID (device id, a lowercase UUID)', { pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' }),
    token: field('new-token', 'Token (16-128 characters: letters, digits, . _ ~ -)', { minlength: '16', maxlength: '128', pattern: '[A-Za-z0-9._~\\-]+' }),
    secret: field('new-secret', 'Secret (the same rule)', { minlength: '16', maxlength: '128', pattern: '[A-Za-z0-9._~\\-]+' }),
  };
  const ownSection = h('details', { id: 'own-credentials' },
    h('summary', {}, 'Bring your own credentials'),
    h('p', { class: 'hint' }, 'For a device that already has a ClientID, token and secret (from NETPIE): give those it uses, ',
      'leave the others empty. Many devices at once: ', h('a', { href: '#/import' }, 'import a file'), '.'),
    own.deviceid.row, own.token.row, own.secret.row);
  const error = h('p', { id: 'new-device-error', class: 'error', role: 'alert' });
  const result = h('div', { id: 'new-device-result' });
  const button = h('button', { type: 'submit' }, 'Create device');

  /** @type {import('./devices-view.js').ProjectSummary[]} */
  let known = [];
  const suggestGroups = () => {
    const groupids = known.find((p) => p.projectid === project.input.value)?.groups.map((g) => g.groupid) ?? [];
    groups.replaceChildren(...groupids.map((g) => h('option', { value: g })));
  };
  project.input.addEventListener('input', suggestGroups);

  /** @param {Event} event */
  async function create(event) {
    event.preventDefault();
    error.textContent = '';
    button.disabled = true;
    try {
      const body = {
        projectid: project.input.value.trim(), groupid: group.input.value.trim(), alias: alias.input.value,
        ...(description.input.value === '' ? {} : { description: description.input.value }),
        ...Object.fromEntries(Object.entries(own).flatMap(([name, f]) => (f.input.value.trim() === '' ? [] : [[name, f.input.value.trim()]]))),
      };
      /** @type {import('./devices-view.js').DeviceRecord & import('./credentials.js').Credentials} */
      const device = await admin('POST', '/v2/admin/devices', { body, signal });
      result.replaceChildren(
        credentialsPanel(device, `${device.alias} is ready`),
        h('p', {}, h('a', { href: deviceHref(device.deviceid), id: 'open-new-device' }, `Open ${device.alias}`), ' · ',
          h('a', { href: `#/devices/${encodeURIComponent(device.projectid)}` }, `Devices of ${device.projectid}`)));
      for (const f of [alias, description, ...Object.values(own)]) f.input.value = '';
      announce(`Created ${device.alias}`);
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401) {
        error.textContent = `${err.message} (${err.code})`;
      } else {
        reportError(err);
      }
    } finally {
      button.disabled = false;
    }
  }

  main.replaceChildren(
    h('p', {}, h('a', { href: '#/devices' }, 'All devices')),
    h('h1', { tabindex: -1 }, 'New device'),
    h('form', { id: 'new-device-form', class: 'card', onsubmit: create },
      h('p', { class: 'hint' }, 'Projects and groups exist through their devices: name a new one to start it.'),
      project.row, group.row, alias.row, description.row, ownSection, projects, groups, button, error),
    result,
  );
  projectsOf(signal).then((list) => {
    known = list;
    projects.replaceChildren(...list.map((p) => h('option', { value: p.projectid })));
    suggestGroups();
  }, reportError);
  return () => abort.abort();
}
