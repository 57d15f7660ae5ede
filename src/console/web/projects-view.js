// @ts-check
import { devicesHref, groupHref, POLL_MS, projectsOf } from './devices-view.js';
import { formatTime, h } from './dom.js';
import { every } from './report.js';
import { retentionForm } from './retention-form.js';

/**
 * Every project and its groups, with how many devices each has and how many are online (GET /v2/admin/projects),
 * read again every few seconds.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function projectsView(main) {
  const abort = new AbortController();
  const { signal } = abort;
  const tbody = h('tbody');
  const updated = h('p', { id: 'projects-updated', class: 'meta' });
  const empty = h('p', { id: 'no-projects', class: 'hint', hidden: true }, 'No projects yet: they start with their first device.');
  const table = h('table', { id: 'projects' },
    h('caption', {}, 'Projects and groups'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Project / group'),
      h('th', { scope: 'col' }, 'Devices'),
      h('th', { scope: 'col' }, 'Online'),
      h('th', { scope: 'col' }, 'Messages'))),
    tbody);
  main.replaceChildren(h('h1', { tabindex: -1 }, 'Projects'), updated, empty, table, retentionForm(signal));

  /** Replaces the rows only when a number or a name changed, so focus on a link survives a refresh. */
  let shown = '';
  every(async () => {
    const projects = await projectsOf(signal);
    updated.textContent = `Updated ${formatTime(Date.now())}; refreshed every ${POLL_MS / 1000} s.`;
    empty.hidden = projects.length > 0;
    table.hidden = projects.length === 0;
    const key = JSON.stringify(projects);
    if (key === shown) return;
    shown = key;
    tbody.replaceChildren(...projects.flatMap((p) => [
      h('tr', { class: 'project-row', 'data-projectid': p.projectid },
        h('th', { scope: 'row' }, h('a', { href: devicesHref(p.projectid) }, p.projectid)),
        h('td', { class: 'count' }, p.devices),
        h('td', { class: 'online-count' }, p.online),
        h('td', {})),
      ...p.groups.map((g) => h('tr', { class: 'group-row', 'data-projectid': p.projectid, 'data-groupid': g.groupid },
        h('td', { class: 'indent' }, h('a', { href: devicesHref(p.projectid, g.groupid) }, g.groupid)),
        h('td', { class: 'count' }, g.devices),
        h('td', { class: 'online-count' }, g.online),
        h('td', {}, h('a', { href: groupHref(p.projectid, g.groupid) }, 'live messages')))),
    ]));
  }, POLL_MS, signal);
  return () => abort.abort();
}
