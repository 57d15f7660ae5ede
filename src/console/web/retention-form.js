// @ts-check
import { admin } from './api.js';
import { announce, h } from './dom.js';
import { runShowingRefusal } from './report.js';

/**
 * @typedef {object} RetentionReport GET /v2/admin/projects/{projectid}/retention
 * @property {string} projectid
 * @property {string | null} retention
 * @property {string} serviceDefault
 * @property {string} effective
 */

/**
 * A project's retention of points (issue 23 §2): read it, set it (`30d`, `12h`, `1y` ...) or drop it back to the
 * service default. A change applies to points written afterwards.
 * @param {AbortSignal} signal
 * @returns {HTMLElement}
 */
export function retentionForm(signal) {
  const project = h('input', { id: 'retention-project', name: 'retention-project', required: true, autocomplete: 'off', spellcheck: 'false' });
  const duration = h('input', { id: 'retention-duration', name: 'retention-duration', autocomplete: 'off', spellcheck: 'false', placeholder: '30d' });
  const result = h('p', { id: 'retention-result', class: 'meta', role: 'status' });
  const error = h('p', { id: 'retention-error', class: 'error', role: 'alert' });
  const path = () => `/v2/admin/projects/${encodeURIComponent(project.value.trim())}/retention`;
  const show = (/** @type {RetentionReport} */ r) => {
    result.textContent = `${r.projectid}: ${r.retention === null ? `the service default, ${r.serviceDefault}` : `its own, ${r.retention}`} ` +
      `(points written from now on are kept ${r.effective === 'unlimited' ? 'until deleted' : `for ${r.effective}`})`;
    announce(result.textContent);
  };
  const run = (/** @type {string} */ what, /** @type {() => Promise<void>} */ action) => {
    if (!project.reportValidity()) return;
    void runShowingRefusal(result, error, what, action);
  };
  const button = (/** @type {string} */ id, /** @type {string} */ label, /** @type {() => void} */ onClick) => {
    const b = h('button', { id, type: 'button' }, label);
    b.addEventListener('click', onClick);
    return b;
  };

  return h('section', { id: 'retention', class: 'card', 'aria-labelledby': 'retention-heading' },
    h('h2', { id: 'retention-heading' }, 'Retention of points'),
    h('p', { class: 'hint' }, 'How long a project\'s points are kept when their field sets no ttl: a duration in ms, s, m, h, d or y. ',
      'A change applies to points written afterwards.'),
    h('div', {}, h('label', { for: 'retention-project' }, 'Project'), project),
    h('div', {}, h('label', { for: 'retention-duration' }, 'Retention'), duration),
    h('p', {},
      button('retention-show', 'Show', () => run('Retention', async () => show(await admin('GET', path(), { signal })))),
      ' ',
      button('retention-set', 'Set', () => run('Set retention', async () =>
        show(await admin('PUT', path(), { body: { retention: duration.value.trim() }, signal })))),
      ' ',
      button('retention-clear', 'Use the service default', () => run('Clear retention', async () => {
        await admin('DELETE', path(), { signal });
        show(await admin('GET', path(), { signal }));
      }))),
    result, error);
}
