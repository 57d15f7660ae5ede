import { FleetEntry, FleetSource } from './port';

/** How long the fleet index of a project is trusted, and kept unqueried (docs/fleet-query.md "The index"). */
export interface FleetIndexSettings {
  /** A project's index older than this is rebuilt from the store in the background at its next query, in ms. */
  readonly maxAgeMs: number;
  /** A project's index not queried for this long is dropped (memory), in ms. */
  readonly idleMs: number;
}

export const DEFAULT_FLEET_INDEX_SETTINGS: FleetIndexSettings = { maxAgeMs: 10 * 60_000, idleMs: 30 * 60_000 };

/** One project's devices as the index holds them at the moment asked. */
export interface ProjectView {
  /** Devices of the project, or of one of its groups. */
  count(groupid?: string): number;
  /** A copy of them: writes after the call do not change it. */
  entries(groupid?: string): FleetEntry[];
}

export interface FleetIndex {
  /** The project's devices; its index is built from the store at its first query (and after a missed notice). */
  project(projectid: string): Promise<ProjectView>;
  /** A shadow write was announced (on this node or another): the device is read again unless the index has `rev`. */
  shadowWritten(deviceid: string, rev: number): void;
  /** A device was created, changed or deleted: it is read again (or dropped). */
  deviceChanged(deviceid: string): void;
  /** Notices may have been missed: every project's index is rebuilt before its next answer. */
  forgetAll(): void;
  /** Resolves once the reads the notices so far started are done (tests, the bench). */
  settled(): Promise<void>;
}

export interface FleetIndexDeps {
  source: FleetSource;
  /** The device's project, from the registry (its cache): which notices concern a project held here. */
  projectOf(deviceid: string): Promise<string | undefined>;
  settings?: FleetIndexSettings;
  now?: () => number;
  /** Told of a read that failed: the device stays as it was until its next notice or the next rebuild. */
  onError?: (err: unknown, deviceid: string) => void;
}

interface ProjectState {
  readonly groups: Map<string, Map<string, FleetEntry>>;
  builtAt: number;
  usedAt: number;
  /** Notices may have been missed since the last read (or there was none): the next answer waits for a new one. */
  stale: boolean;
  /** The read begun for a stale index, which answers wait for. */
  refreshing?: Promise<void>;
  /** While the project is read from the store: the devices read again meanwhile, whose newer state wins. */
  touched?: Set<string>;
  loading?: Promise<void>;
}

/**
 * The fleet query's index (issue 25 §4): each node keeps, for each project queried on it, every device's place and
 * shadow in memory, read from the store at the project's first query and kept up to date by the notices of every
 * write, whichever node made it (`@shadow/data/updated`, which the backbone carries to every node) and of every
 * device change (ChangeFeed): each notice makes the node read that device again, so the index is the store's state
 * a read later. A notice that may have been lost (`forgetAll`) makes every project be read again before its next
 * answer, and an index older than `maxAgeMs` is read again in the background.
 */
export function createFleetIndex({ source, projectOf, settings = DEFAULT_FLEET_INDEX_SETTINGS, now = Date.now, onError = () => undefined }: FleetIndexDeps): FleetIndex {
  const projects = new Map<string, ProjectState>();
  /** Each device held, with the project state holding it. */
  const holder = new Map<string, { state: ProjectState; entry: FleetEntry }>();
  /** Devices being read again, and whether another notice came meanwhile (then it is read once more). */
  const reading = new Map<string, { again: boolean; done: Promise<void> }>();

  function remove(deviceid: string): void {
    const held = holder.get(deviceid);
    if (!held) return;
    const { state, entry } = held;
    const group = state.groups.get(entry.groupid);
    if (group?.delete(deviceid) && group.size === 0) state.groups.delete(entry.groupid);
    holder.delete(deviceid);
  }

  /**
   * Holds the device, or drops it when its shadow was never written: a device enters the index with its first write,
   * whose notice every node gets, so every node holds the same devices (a new device announces nothing).
   */
  function put(state: ProjectState, entry: FleetEntry): void {
    remove(entry.deviceid);
    if (entry.rev === 0) return;
    let group = state.groups.get(entry.groupid);
    if (!group) state.groups.set(entry.groupid, (group = new Map()));
    group.set(entry.deviceid, entry);
    holder.set(entry.deviceid, { state, entry });
  }

  /** Reads the project from the store into `state`; what notices read meanwhile is newer and stays. */
  function rebuild(projectid: string, state: ProjectState): Promise<void> {
    state.loading ??= (async () => {
      state.touched = new Set();
      const startedAt = now();
      try {
        const entries = await source.loadProject(projectid);
        const seen = new Set<string>();
        for (const entry of entries) {
          seen.add(entry.deviceid);
          if (!state.touched.has(entry.deviceid)) put(state, entry);
        }
        for (const group of [...state.groups.values()]) {
          for (const deviceid of [...group.keys()]) if (!seen.has(deviceid) && !state.touched.has(deviceid)) remove(deviceid);
        }
        state.builtAt = startedAt;
      } finally {
        state.touched = undefined;
        state.loading = undefined;
      }
    })();
    return state.loading;
  }

  async function readAgain(deviceid: string): Promise<void> {
    const entry = await source.loadDevice(deviceid);
    const state = entry ? projects.get(entry.projectid) : undefined;
    for (const loading of projects.values()) loading.touched?.add(deviceid);
    if (entry && state) put(state, entry);
    else remove(deviceid);
  }

  /** Reads the device again; notices that come during a read make one more read after it, never two at once. */
  function refresh(deviceid: string): void {
    const current = reading.get(deviceid);
    if (current) {
      current.again = true;
      return;
    }
    const state = { again: true, done: Promise.resolve() };
    reading.set(deviceid, state);
    state.done = (async () => {
      try {
        while (state.again) {
          state.again = false;
          await readAgain(deviceid).catch((err: unknown) => onError(err, deviceid));
        }
      } finally {
        reading.delete(deviceid);
      }
    })();
  }

  /** A notice about a device of a project held here (or held and leaving it) makes it be read again. */
  async function concerned(deviceid: string): Promise<boolean> {
    if (projects.size === 0) return false;
    if (holder.has(deviceid)) return true;
    const projectid = await projectOf(deviceid).catch(() => undefined);
    return projectid !== undefined && projects.has(projectid);
  }

  function dropIdle(at: number): void {
    for (const [projectid, state] of projects) {
      if (state.loading || at - state.usedAt <= settings.idleMs) continue;
      projects.delete(projectid);
      for (const group of state.groups.values()) for (const deviceid of group.keys()) holder.delete(deviceid);
    }
  }

  return {
    async project(projectid) {
      const at = now();
      dropIdle(at);
      let state = projects.get(projectid);
      if (!state) {
        state = { groups: new Map(), builtAt: 0, usedAt: at, stale: true };
        projects.set(projectid, state);
      }
      state.usedAt = at;
      if (state.stale) {
        const building = state;
        building.stale = false;
        // A read already under way may have begun before the notices were missed: a new one follows it.
        const refreshing = (building.loading ?? Promise.resolve()).catch(() => undefined).then(() => rebuild(projectid, building));
        building.refreshing = refreshing;
        void refreshing.then(
          () => (building.refreshing === refreshing ? (building.refreshing = undefined) : undefined),
          () => {
            if (building.refreshing === refreshing) building.refreshing = undefined;
            // A first read that failed leaves nothing behind; a later one is tried again by the next query.
            if (building.builtAt === 0 && projects.get(projectid) === building) projects.delete(projectid);
            else building.stale = true;
          },
        );
      }
      if (state.refreshing) await state.refreshing;
      else if (at - state.builtAt > settings.maxAgeMs) {
        void rebuild(projectid, state).catch((err: unknown) => onError(err, `project ${projectid}`));
      }
      const held = state;
      const groupsOf = (groupid?: string) =>
        groupid === undefined ? [...held.groups.values()] : held.groups.has(groupid) ? [held.groups.get(groupid)!] : [];
      return {
        count: (groupid) => groupsOf(groupid).reduce((n, group) => n + group.size, 0),
        entries(groupid) {
          const entries: FleetEntry[] = [];
          for (const group of groupsOf(groupid)) for (const entry of group.values()) entries.push(entry);
          return entries;
        },
      };
    },

    shadowWritten(deviceid, rev) {
      const held = holder.get(deviceid);
      if (held && held.entry.rev >= rev) return;
      void concerned(deviceid).then((yes) => yes && refresh(deviceid));
    },

    deviceChanged(deviceid) {
      void concerned(deviceid).then((yes) => yes && refresh(deviceid));
    },

    forgetAll() {
      for (const state of projects.values()) state.stale = true;
    },

    async settled() {
      // A notice's `concerned` check takes a turn of the event loop before its read is registered.
      await new Promise((resolve) => setImmediate(resolve));
      while (reading.size > 0) await Promise.all([...reading.values()].map((r) => r.done));
    },
  };
}
