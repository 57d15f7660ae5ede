// @ts-check
import { admin, ApiError } from './api.js';
import { announce, h } from './dom.js';
import { reportError } from './report.js';

/**
 * @typedef {object} ImportedDevice one row of an import's answer (POST /v2/admin/devices/import)
 * @property {number} row
 * @property {string} [deviceid] absent in a dry run when the service is to make it
 * @property {string} projectid
 * @property {string} groupid
 * @property {string} alias
 * @property {string[]} generated
 * @property {string} [token] made by the service: shown this once
 * @property {string} [secret]
 */

/** @typedef {{row: number, line?: number, field: string | null, code: string, message: string}} RowError */

/**
 * Imports devices from a CSV or JSON file (docs/moving-from-netpie.md): "Check" runs a dry run and shows what would
 * be created or every problem by row; "Import" is offered only after a clean check of the same file.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function importView(main) {
  const abort = new AbortController();
  const { signal } = abort;
  const file = h('input', { id: 'import-file', type: 'file', accept: '.csv,.json,text/csv,application/json', required: true });
  const check = h('button', { type: 'submit', id: 'import-check' }, 'Check (dry run)');
  const apply = h('button', { type: 'button', id: 'import-apply', disabled: true }, 'Import');
  const error = h('p', { id: 'import-error', class: 'error', role: 'alert' });
  const result = h('div', { id: 'import-result' });
  /** @type {{type: string, text: string} | undefined} the file that passed its dry run */
  let checked;

  /** @param {File} f */
  const readFile = async (f) => ({ type: /\.csv$/i.test(f.name) || f.type === 'text/csv' ? 'text/csv' : 'application/json', text: await f.text() });

  /**
   * @param {{type: string, text: string}} raw
   * @param {boolean} dryRun
   */
  async function send(raw, dryRun) {
    error.textContent = '';
    result.replaceChildren();
    try {
      /** @type {{dryRun: boolean, count: number, devices: ImportedDevice[]}} */
      const report = await admin('POST', `/v2/admin/devices/import${dryRun ? '?dryRun=true' : ''}`, { raw, signal });
      result.replaceChildren(reportTable(report));
      announce(dryRun ? `${report.count} devices can be imported` : `Imported ${report.count} devices`);
      return true;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500 || err.status === 401) {
        reportError(err);
        return false;
      }
      error.textContent = `${err.message} (${err.code})`;
      if (Array.isArray(err.body?.rowErrors)) result.replaceChildren(errorTable(err.body.rowErrors));
      return false;
    }
  }

  /** @param {Event} event */
  async function onCheck(event) {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    check.disabled = apply.disabled = true;
    const raw = await readFile(chosen);
    checked = (await send(raw, true)) ? raw : undefined;
    check.disabled = false;
    apply.disabled = checked === undefined;
  }

  async function onApply() {
    if (!checked) return;
    check.disabled = apply.disabled = true;
    await send(checked, false);
    checked = undefined;
    check.disabled = false;
  }

  file.addEventListener('change', () => {
    checked = undefined;
    apply.disabled = true;
  });
  apply.addEventListener('click', onApply);

  main.replaceChildren(
    h('p', {}, h('a', { href: '#/new-device' }, 'New device')),
    h('h1', { tabindex: -1 }, 'Import devices'),
    h('form', { id: 'import-form', class: 'card', onsubmit: onCheck },
      h('p', { class: 'hint' }, 'A CSV file with a header row (deviceid or clientid, token, secret, projectid, groupid, alias, ',
        'description, enabled, livenessttl) or JSON {"devices":[…]}. Empty credentials are made by the service. ',
        'Nothing is written unless every row is right.'),
      h('div', {}, h('label', { for: 'import-file' }, 'File'), file),
      check, ' ', apply, error),
    result,
  );
  return () => abort.abort();
}

/**
 * What an import did or would do; credentials the service made are shown here once.
 * @param {{dryRun: boolean, count: number, devices: ImportedDevice[]}} report
 */
function reportTable(report) {
  const made = report.devices.some((d) => d.token !== undefined || d.secret !== undefined);
  return h('section', { class: 'card', 'aria-labelledby': 'import-report-heading' },
    h('h2', { id: 'import-report-heading' }, report.dryRun ? `${report.count} devices would be created` : `${report.count} devices created`),
    made ? h('p', { class: 'notice' }, 'Copy the credentials made by the service now: they are shown only this once.') : null,
    h('table', { id: 'import-report' },
      h('thead', {}, h('tr', {}, ...['Row', 'Project', 'Group', 'Alias', 'ClientID', 'Made by the service', 'Token', 'Secret'].map((c) => h('th', {}, c)))),
      h('tbody', {}, ...report.devices.map((d) => h('tr', {},
        h('td', {}, d.row), h('td', {}, d.projectid), h('td', {}, d.groupid), h('td', {}, d.alias),
        h('td', {}, d.deviceid ?? '(new)'), h('td', {}, d.generated.join(', ') || 'nothing'),
        h('td', {}, d.token ?? ''), h('td', {}, d.secret ?? ''))))));
}

/** @param {RowError[]} errors */
function errorTable(errors) {
  return h('table', { id: 'import-errors' },
    h('thead', {}, h('tr', {}, ...['Row', 'Line', 'Field', 'Code', 'Problem'].map((c) => h('th', {}, c)))),
    h('tbody', {}, ...errors.map((e) => h('tr', {},
      h('td', {}, e.row), h('td', {}, e.line ?? ''), h('td', {}, e.field ?? '(row)'), h('td', {}, e.code), h('td', {}, e.message)))));
}
