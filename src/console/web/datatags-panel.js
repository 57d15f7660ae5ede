// @ts-check
import { admin } from './api.js';
import { announce, h } from './dom.js';
import { reportError, runShowingRefusal } from './report.js';

/**
 * @typedef {object} Datatag GET /v2/admin/devices/{deviceid}/datatags (docs/data-store.md "Datatags")
 * @property {string} attr
 * @property {string} path
 * @property {'number' | 'boolean'} type
 * @property {string | number} ttl
 * @property {string} name
 * @property {string} [unit]
 * @property {string} [expression]
 * @property {boolean} enabled
 */

/**
 * A device's own datatags as a table, with each tag's enable toggle, clear feed (its points) and delete feed (its
 * points and the tag). Setting the list stays with the admin API and the CLI, as schemas do.
 * @param {{deviceid: string, signal: AbortSignal}} device
 * @returns {HTMLElement}
 */
export function datatagsPanel({ deviceid, signal }) {
  const base = `/v2/admin/devices/${encodeURIComponent(deviceid)}/datatags`;
  const table = h('div', { id: 'datatags' }, h('p', { class: 'meta' }, 'Loading…'));
  const result = h('p', { id: 'datatags-result', role: 'status' });
  const error = h('p', { id: 'datatags-error', class: 'error', role: 'alert' });

  /** @param {string} what @param {string} done @param {() => Promise<unknown>} action */
  const act = (what, done, action) => runShowingRefusal(result, error, what, async () => {
    await action();
    result.textContent = done;
    announce(done);
    await load();
  });

  /** @param {Datatag} tag */
  const row = (tag) => {
    const attr = encodeURIComponent(tag.attr);
    return h('tr', { 'data-attr': tag.attr },
      h('th', { scope: 'row' }, h('code', {}, tag.attr)),
      h('td', {}, ...(tag.name === tag.path ? [h('code', {}, tag.path)] : [tag.name, ' (', h('code', {}, tag.path), ')'])),
      h('td', {}, tag.type, tag.unit ? `, ${tag.unit}` : '', ...(tag.expression ? [', ', h('code', {}, tag.expression)] : [])),
      h('td', {}, String(tag.ttl)),
      h('td', {}, h('button', {
        type: 'button', class: 'secondary toggle', 'aria-pressed': String(tag.enabled),
        onclick: () => act('Not changed', `${tag.attr} ${tag.enabled ? 'disabled: it records nothing' : 'enabled'}.`,
          () => admin('PATCH', `${base}/${attr}`, { body: { enabled: !tag.enabled }, signal })),
      }, tag.enabled ? 'Enabled' : 'Disabled')),
      h('td', { class: 'actions' },
        h('button', {
          type: 'button', class: 'secondary clear',
          onclick: () => confirm(`Delete every point of ${tag.attr}? The tag stays.`)
            && act('Not cleared', `Points of ${tag.attr} deleted.`, () => admin('POST', `${base}/${attr}/clear`, { signal })),
        }, 'Clear feed'),
        h('button', {
          type: 'button', class: 'danger delete',
          onclick: () => confirm(`Delete the tag ${tag.attr} and every one of its points?`)
            && act('Not deleted', `Tag ${tag.attr} and its points deleted.`, () => admin('DELETE', `${base}/${attr}`, { signal })),
        }, 'Delete feed')));
  };

  async function load() {
    /** @type {Datatag[]} */
    const tags = await admin('GET', base, { signal });
    table.replaceChildren(tags.length === 0
      ? h('p', { id: 'datatags-none', class: 'hint' }, 'No datatags of its own: its group\'s default applies, else every numeric field is recorded.')
      : h('table', { id: 'datatags-table' },
        h('thead', {}, h('tr', {}, ...['Attr', 'Name (path)', 'Type', 'TTL', 'Recording', 'Feed'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, ...tags.map(row))));
  }
  load().catch(reportError);

  return h('div', {}, table, result, error);
}
