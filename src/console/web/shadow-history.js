// @ts-check
import { admin } from './api.js';
import { formatTime, h } from './dom.js';
import { reportError } from './report.js';

/** Revisions asked for at once: the largest page of `GET .../shadow/revisions` (docs/device-api.md "Shadow history"). */
const PAGE = 100;

/** @typedef {import('./device-view.js').ShadowReply} Revision */

/**
 * The device's shadow history as a slider over its kept revisions (issue 25 §5): oldest at the left, newest at the
 * right, the document of the chosen one below. It follows new writes while the slider is at the newest; older pages
 * come on demand.
 * @param {{deviceid: string, signal: AbortSignal}} device
 * @returns {{element: HTMLElement, update: (rev: number) => void}}
 */
export function shadowHistoryPanel({ deviceid, signal }) {
  const base = `/v2/admin/devices/${encodeURIComponent(deviceid)}/shadow/revisions`;
  const slider = h('input', { id: 'revision-slider', type: 'range', min: 0, max: 0, step: 1, value: 0, disabled: true, 'aria-describedby': 'revision-meta' });
  const meta = h('p', { id: 'revision-meta', class: 'meta', 'aria-live': 'polite' }, 'Loading the revisions…');
  const json = h('pre', { id: 'revision-json', class: 'json', tabindex: 0, 'aria-labelledby': 'revisions-heading' });
  const older = h('button', { type: 'button', id: 'revision-older', hidden: true, onclick: () => void loadOlder() }, 'Load older revisions');
  const element = h('section', { class: 'card', 'aria-labelledby': 'revisions-heading' },
    h('h2', { id: 'revisions-heading' }, 'Shadow history'),
    h('label', { for: 'revision-slider' }, 'Revision'),
    slider, meta, json, older);

  /** @type {Revision[]} oldest first */
  let revisions = [];
  /** @type {string | undefined} the cursor of the next older page */
  let next;
  let shownRev = -1;
  let followNewest = true;

  slider.addEventListener('input', () => {
    followNewest = Number(slider.value) === revisions.length - 1;
    show();
  });

  function show() {
    const r = revisions[Number(slider.value)];
    if (r === undefined) {
      meta.textContent = 'No revision kept yet.';
      json.textContent = '';
      return;
    }
    meta.textContent = `Revision ${r.rev}, written ${formatTime(r.modified)} (data time ${formatTime(r.timestamp)}).`;
    json.textContent = JSON.stringify(r.data, null, 2);
    json.dataset.rev = String(r.rev);
  }

  /** Shows `list` (oldest first), keeping the revision chosen unless the slider follows the newest. */
  function place(/** @type {Revision[]} */ list) {
    const chosen = revisions[Number(slider.value)]?.rev;
    revisions = list;
    slider.max = String(Math.max(0, list.length - 1));
    slider.disabled = list.length < 2;
    const kept = followNewest ? -1 : list.findIndex((r) => r.rev === chosen);
    slider.value = String(kept >= 0 ? kept : list.length - 1);
    older.hidden = next === undefined;
    show();
  }

  /** The newest page, with the older revisions already loaded kept behind it. */
  async function loadNewest() {
    const page = await admin('GET', `${base}?limit=${PAGE}`, { signal });
    /** @type {Revision[]} */
    const newest = [...page.revisions].reverse();
    const oldestRev = newest[0]?.rev ?? Infinity;
    if (revisions.length === 0) next = page.next;
    place([...revisions.filter((r) => r.rev < oldestRev), ...newest]);
  }

  async function loadOlder() {
    if (next === undefined) return;
    try {
      const page = await admin('GET', `${base}?limit=${PAGE}&cursor=${encodeURIComponent(next)}`, { signal });
      next = page.next;
      followNewest = false;
      place([...[...page.revisions].reverse(), ...revisions]);
    } catch (err) {
      reportError(err);
    }
  }

  return {
    element,
    /** Called on every read of the shadow: a new rev loads the newest revisions again. */
    update(rev) {
      if (rev === shownRev) return;
      shownRev = rev;
      loadNewest().catch(reportError);
    },
  };
}
