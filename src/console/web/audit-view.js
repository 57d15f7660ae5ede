// @ts-check
import { admin } from './api.js';
import { formatTime, h } from './dom.js';
import { every } from './report.js';

const POLL_MS = 10_000;

/**
 * @typedef {object} AuditEntry
 * @property {number} at
 * @property {string} actor
 * @property {string} role
 * @property {string} method
 * @property {string} path
 * @property {Record<string, string>} targets
 * @property {string} source
 * @property {number} status
 */

/**
 * The audit log (GET /v2/admin/audit, an admin's to read): the newest 200 admin changes, who made them, when, what,
 * from where and how they ended, read again every few seconds.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function auditView(main) {
  const abort = new AbortController();
  const { signal } = abort;
  const tbody = h('tbody');
  const updated = h('p', { id: 'audit-updated', class: 'meta' });
  const table = h('table', { id: 'audit' },
    h('caption', {}, 'Admin changes, newest first'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'When'),
      h('th', { scope: 'col' }, 'Who'),
      h('th', { scope: 'col' }, 'What'),
      h('th', { scope: 'col' }, 'From'),
      h('th', { scope: 'col' }, 'Status'))),
    tbody);
  main.replaceChildren(h('h1', { tabindex: -1 }, 'Audit log'), updated, table);

  let shown = '';
  every(async () => {
    const { entries } = /** @type {{entries: AuditEntry[]}} */ (await admin('GET', '/v2/admin/audit?limit=200', { signal }));
    updated.textContent = `Updated ${formatTime(Date.now())}; refreshed every ${POLL_MS / 1000} s.`;
    const key = JSON.stringify(entries);
    if (key === shown) return;
    shown = key;
    tbody.replaceChildren(...entries.map((e) => h('tr', { class: 'audit-row' },
      h('td', {}, formatTime(e.at)),
      h('td', {}, `${e.actor} (${e.role})`),
      h('td', {}, `${e.method} ${e.path}`),
      h('td', {}, e.source),
      h('td', { class: 'count' }, e.status))));
  }, POLL_MS, signal);
  return () => abort.abort();
}
