// @ts-check
import { admin } from './api.js';
import { projectsOf } from './devices-view.js';
import { announce, formatTime, h } from './dom.js';
import { copyRow } from './credentials.js';
import { reportError, runShowingRefusal } from './report.js';

/**
 * @typedef {object} ApplicationRecord an application key as the admin API shows it: never its secret (issue 22)
 * @property {string} key
 * @property {string} name
 * @property {string} projectid
 * @property {string[]} groups empty: every group of the project
 * @property {boolean} enabled
 * @property {number} created
 */

export const applicationsHref = (/** @type {string} */ projectid) => `#/applications/${encodeURIComponent(projectid)}`;

/**
 * A key and its secret, shown once after they are made or the secret is rotated: the service keeps only the secret's
 * digest, so neither it nor the console can show it again. The same look as a device's credentials (credentials.js).
 * @param {{key: string, secret: string, name: string}} issued
 * @param {string} heading
 */
function secretPanel(issued, heading) {
  const status = h('p', { id: 'copy-status', class: 'meta', role: 'status' });
  /** @param {string} name @param {string} label @param {string} value */
  const row = (name, label, value) => copyRow(name, label, value, status, 'app');
  return h('section', { id: 'new-application-secret', class: 'card credentials', 'aria-labelledby': 'app-secret-heading' },
    h('h2', { id: 'app-secret-heading' }, heading),
    h('p', { class: 'notice' }, `Copy them now: the secret of ${issued.name || 'this key'} is shown only this once; the service keeps `,
      'only its digest. A lost secret is replaced by rotating it.'),
    h('div', { class: 'copy-rows' }, row('key', 'Application key (MQTT username)', issued.key), row('secret', 'Secret (MQTT password)', issued.secret)),
    status);
}

/**
 * The application keys of a project (the Flow Channel's MQTT log-ins, docs/operations.md "Application keys"): list,
 * create (the secret shown once), rotate the secret, enable or disable, revoke. Keys change rarely: the list is read
 * when the page opens and after each change, not polled.
 * @param {HTMLElement} main
 * @param {{projectid?: string}} params
 * @returns {() => void}
 */
export function applicationsView(main, { projectid }) {
  const abort = new AbortController();
  const { signal } = abort;
  const projects = h('datalist', { id: 'app-projects' });
  const pick = h('input', { id: 'app-project', name: 'project', list: 'app-projects', required: true, value: projectid ?? '', autocomplete: 'off', spellcheck: 'false' });
  const picker = h('form', { id: 'app-project-form', class: 'card', onsubmit: (event) => {
    event.preventDefault();
    location.hash = applicationsHref(pick.value.trim());
  } }, h('label', { for: 'app-project' }, 'Project'), pick, projects, h('button', { type: 'submit' }, 'Show keys'));
  main.replaceChildren(h('h1', { tabindex: -1 }, 'Applications'),
    h('p', { class: 'hint' }, 'Application keys let applications (such as NETPIE\'s Node-RED nodes) log in to MQTT: username = key, password = secret.'),
    picker);
  void projectsOf(signal).then((list) => projects.replaceChildren(...list.map((p) => h('option', { value: p.projectid }))), reportError);
  if (projectid === undefined) return () => abort.abort();

  const base = '/v2/admin/applications';
  const result = h('p', { id: 'app-result', role: 'status' });
  const error = h('p', { id: 'app-error', class: 'error', role: 'alert' });
  const issued = h('div', { id: 'app-issued' });
  const tbody = h('tbody');
  const empty = h('p', { id: 'no-applications', class: 'hint', hidden: true }, `Project ${projectid} has no application keys yet.`);
  const table = h('table', { id: 'applications' },
    h('caption', {}, `Application keys of ${projectid}`),
    h('thead', {}, h('tr', {}, ...['Name', 'Key', 'Groups', 'State', 'Created', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
    tbody);
  const name = h('input', { id: 'app-name', name: 'name', maxlength: 128, autocomplete: 'off' });
  const groups = h('input', { id: 'app-groups', name: 'groups', autocomplete: 'off', spellcheck: 'false', placeholder: 'every group' });
  const create = h('form', { id: 'new-application', class: 'card', onsubmit: (event) => {
    event.preventDefault();
    const list = groups.value.split(',').map((g) => g.trim()).filter((g) => g !== '');
    void run('Not created', async () => {
      const made = await admin('POST', base, { body: { projectid, name: name.value, groups: list }, signal });
      issued.replaceChildren(secretPanel(made, `New application key ${made.name}`));
      name.value = '';
      groups.value = '';
      say('Created: copy its secret now.');
    });
  } },
  h('h2', {}, 'New application key'),
  h('label', { for: 'app-name' }, 'Name'), name,
  h('label', { for: 'app-groups' }, 'Groups (comma-separated; empty: every group of the project)'), groups,
  h('button', { type: 'submit' }, 'Create key'));
  main.append(result, error, issued, empty, table, create);

  /** @param {string} text */
  const say = (text) => announce((result.textContent = text));

  /** Runs an action, shows a refusal beside the table, and reads the list again. @param {string} what @param {() => Promise<void>} action */
  async function run(what, action) {
    await runShowingRefusal(result, error, what, action);
    await load().catch(reportError);
  }

  /** @param {ApplicationRecord} a */
  const rowOf = (a) => {
    const path = `${base}/${encodeURIComponent(a.key)}`;
    const label = a.name || a.key;
    return h('tr', { class: 'application-row', 'data-key': a.key },
      h('td', {}, a.name),
      h('td', {}, h('code', {}, a.key)),
      h('td', {}, a.groups.length === 0 ? 'every group' : a.groups.join(', ')),
      h('td', { class: 'state' }, a.enabled ? 'enabled' : 'disabled'),
      h('td', {}, formatTime(a.created)),
      h('td', { class: 'actions' },
        h('button', { type: 'button', class: 'secondary toggle', onclick: () => run('Not changed', async () => {
          const changed = await admin('PATCH', path, { body: { enabled: !a.enabled }, signal });
          say(changed.enabled ? `${label} enabled: it may log in.` : `${label} disabled: it may not log in, and its connections were closed.`);
        }) }, a.enabled ? 'Disable' : 'Enable'),
        h('button', { type: 'button', class: 'secondary rotate', onclick: () => run('Secret not rotated', async () => {
          const rotated = await admin('POST', `${path}/secret`, { signal });
          issued.replaceChildren(secretPanel(rotated, `New secret of ${label}`));
          say('Secret rotated: the old one no longer works, and its connections were closed.');
        }) }, 'Rotate secret'),
        h('button', { type: 'button', class: 'danger revoke', onclick: () => {
          if (!window.confirm(`Revoke ${label}? Applications using it are disconnected and refused from now on.`)) return;
          void run('Not revoked', async () => {
            await admin('DELETE', path, { signal });
            say(`Revoked ${label}.`);
          });
        } }, 'Revoke')));
  };

  async function load() {
    const { applications } = /** @type {{applications: ApplicationRecord[]}} */ (
      await admin('GET', `${base}?projectid=${encodeURIComponent(/** @type {string} */ (projectid))}`, { signal }));
    empty.hidden = applications.length > 0;
    table.hidden = applications.length === 0;
    tbody.replaceChildren(...applications.map(rowOf));
  }
  load().catch(reportError);
  return () => abort.abort();
}
