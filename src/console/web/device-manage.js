// @ts-check
import { admin } from './api.js';
import { credentialsPanel } from './credentials.js';
import { devicesHref, projectsOf } from './devices-view.js';
import { announce, h } from './dom.js';
import { flash, runShowingRefusal } from './report.js';

/**
 * An operator's actions on one device (admin API): enable or disable, ban or unban, rotate the token or the secret
 * (the new one is shown once: the service keeps only digests, so a lost one is replaced, never shown again), move to another group, delete (after a confirmation). Each answers with the device record, which
 * `onChanged` shows at once rather than at the next poll.
 * @param {{deviceid: string, signal: AbortSignal, onChanged: (device: import('./devices-view.js').DeviceRecord) => void}} options
 * @returns {{element: HTMLElement, update: (device: import('./devices-view.js').DeviceRecord) => void}}
 */
export function managePanel({ deviceid, signal, onChanged }) {
  const base = `/v2/admin/devices/${encodeURIComponent(deviceid)}`;
  /** @type {import('./devices-view.js').DeviceRecord | undefined} */
  let device;
  const result = h('p', { id: 'manage-result', role: 'status' });
  const error = h('p', { id: 'manage-error', class: 'error', role: 'alert' });
  const credentials = h('div', { id: 'rotated-credentials' });
  const enable = h('button', { type: 'button', id: 'enable-button', onclick: () => patch({ enabled: !device?.enabled }) });
  const ban = h('button', { type: 'button', id: 'ban-button', class: 'secondary', onclick: () => patch({ banned: !device?.banned }) });
  const rotate = h('button', { type: 'button', id: 'rotate-button', class: 'secondary', onclick: () => rotateKey('token') }, 'Rotate key');
  const rotateSecret = h('button', { type: 'button', id: 'rotate-secret-button', class: 'secondary', onclick: () => rotateKey('secret') }, 'Rotate secret');
  const groups = h('datalist', { id: 'move-groups' });
  const moveTo = h('input', { id: 'move-group', name: 'group', list: 'move-groups', required: true, autocomplete: 'off', spellcheck: 'false' });
  const confirmDelete = h('button', { type: 'button', id: 'delete-confirm', class: 'danger', onclick: remove }, 'Delete');
  const dialog = h('dialog', { id: 'delete-dialog', 'aria-labelledby': 'delete-heading' },
    h('h2', { id: 'delete-heading' }, 'Delete this device?'),
    h('p', { id: 'delete-question' }),
    h('div', { class: 'dialog-buttons' },
      h('button', { type: 'button', id: 'delete-cancel', class: 'secondary', onclick: () => dialog.close() }, 'Cancel'),
      confirmDelete));

  /** @param {string} what @param {() => Promise<void>} action */
  const run = (what, action) => runShowingRefusal(result, error, what, action);

  /** @param {{enabled?: boolean, banned?: boolean, groupid?: string}} change */
  function patch(change) {
    return run('Not changed', async () => {
      /** @type {import('./devices-view.js').DeviceRecord} */
      const changed = await admin('PATCH', base, { body: change, signal });
      onChanged(changed);
      const said = change.groupid !== undefined ? `Moved to group ${changed.groupid}; its connections were closed.`
        : change.banned !== undefined ? (changed.banned ? 'Banned: it may not connect.' : 'No longer banned.')
          : changed.enabled ? 'Enabled: it may connect.' : 'Disabled: it may not connect.';
      result.textContent = said;
      announce(said);
    });
  }

  /** @param {'token' | 'secret'} which */
  function rotateKey(which) {
    return run(which === 'token' ? 'Key not rotated' : 'Secret not rotated', async () => {
      const changed = await admin('POST', `${base}/${which}`, { signal });
      onChanged(changed);
      credentials.replaceChildren(credentialsPanel(changed, which === 'token' ? `New key of ${changed.alias}` : `New secret of ${changed.alias}`));
      result.textContent = which === 'token' ? 'Key rotated: the old token no longer works, and its connections were closed.'
        : 'Secret rotated: the old secret no longer works, and its connections were closed.';
      announce(result.textContent);
    });
  }

  function remove() {
    return run('Not deleted', async () => {
      const gone = device;
      await admin('DELETE', base, { signal });
      dialog.close();
      flash(`Deleted ${gone?.alias ?? deviceid} (its shadow too; its recorded points stay until DELETE /feed/api/v1/metric/${deviceid}).`);
      location.hash = gone ? devicesHref(gone.projectid) : '#/devices';
    });
  }

  const element = h('section', { class: 'card', 'aria-labelledby': 'manage-heading' },
    h('h2', { id: 'manage-heading' }, 'Manage'),
    h('div', { class: 'actions' }, enable, ban, rotate, rotateSecret,
      h('button', { type: 'button', id: 'delete-button', class: 'danger', onclick: () => dialog.showModal() }, 'Delete…')),
    h('form', { id: 'move-form', class: 'controls', onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); void patch({ groupid: moveTo.value.trim() }); } },
      h('div', {}, h('label', { for: 'move-group' }, 'Move to group'), moveTo, groups),
      h('div', {}, h('button', { type: 'submit', id: 'move-button', class: 'secondary' }, 'Move'))),
    result, error, credentials, dialog);

  let groupsLoaded = false;
  return {
    element,
    update(d) {
      device = d;
      enable.textContent = d.enabled ? 'Disable' : 'Enable';
      ban.textContent = d.banned ? 'Unban' : 'Ban';
      const question = dialog.querySelector('#delete-question');
      if (question) question.textContent = `${d.alias} (${d.deviceid}) and its shadow will be gone; it can no longer connect.`;
      if (!groupsLoaded) {
        groupsLoaded = true;
        projectsOf(signal).then((list) => {
          const ids = list.find((p) => p.projectid === d.projectid)?.groups.map((g) => g.groupid) ?? [];
          groups.replaceChildren(...ids.filter((g) => g !== d.groupid).map((g) => h('option', { value: g })));
        }, () => {});
      }
    },
  };
}
