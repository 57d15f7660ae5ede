import { Device } from './device';

/** A page of a device list: `total` counts every device that matched, `devices` the ones of this page. */
export interface DevicePage {
  devices: Device[];
  total: number;
}

/**
 * Filters and pages a device list (in the store's order: project, group, alias) for an operator's console (issue 13
 * §2): `q` matches part of the alias in any case, or the start of the device id. In memory: a fleet of thousands of
 * devices is a few hundred KB, read by one admin call.
 */
export function pageDevices(list: readonly Device[], page: { q?: string; limit?: number; offset?: number }): DevicePage {
  const q = page.q?.toLowerCase();
  const matching = q === undefined ? list : list.filter((d) => d.alias.toLowerCase().includes(q) || d.deviceid.startsWith(q));
  const offset = page.offset ?? 0;
  const devices = matching.slice(offset, page.limit === undefined ? undefined : offset + page.limit);
  return { devices, total: matching.length };
}

export interface GroupSummary {
  groupid: string;
  devices: number;
  online: number;
}

export interface ProjectSummary {
  projectid: string;
  devices: number;
  online: number;
  groups: GroupSummary[];
}

/** Every project with its groups (ids exist through their devices), each with its device count and how many are online. */
export function summarizeFleet(list: readonly Device[], statusOf: (d: Device) => 0 | 1): { projects: ProjectSummary[] } {
  const projects = new Map<string, Map<string, { devices: number; online: number }>>();
  for (const d of list) {
    let groups = projects.get(d.projectid);
    if (groups === undefined) projects.set(d.projectid, (groups = new Map()));
    const group = groups.get(d.groupid) ?? { devices: 0, online: 0 };
    group.devices++;
    group.online += statusOf(d);
    groups.set(d.groupid, group);
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    projects: [...projects.keys()].sort(byName).map((projectid) => {
      const groups = [...projects.get(projectid)!].sort(([a], [b]) => byName(a, b)).map(([groupid, g]) => ({ groupid, ...g }));
      return {
        projectid,
        devices: groups.reduce((n, g) => n + g.devices, 0),
        online: groups.reduce((n, g) => n + g.online, 0),
        groups,
      };
    }),
  };
}
