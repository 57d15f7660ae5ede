import { ChangeFeed } from '../cluster/port';
import { ReadCacheOptions } from '../cluster/read-cache';
import { createSharedReadCache } from '../cluster/shared-read-cache';
import { formatTtl } from './durations';
import { ProjectRetentionStore } from './project-retention';
import { RetentionPolicy } from './retention';

/** The retention levels of a project as the admin API answers them: durations as text (`30d`), or `unlimited`. */
export interface RetentionReport {
  readonly projectid: string;
  /** The project's own retention; null: none, the service default applies. */
  readonly retention: string | null;
  /** POINT_RETENTION. */
  readonly serviceDefault: string;
  /** What applies to the project's points without a ttl of their own, written from now on. */
  readonly effective: string;
  /** The same in ms; null: kept until deleted. */
  readonly effectiveMs: number | null;
}

/** The project level of retention and the service default, read through a cache every node keeps (issue 14). */
export interface Retention extends RetentionPolicy {
  report(projectid: string): Promise<RetentionReport>;
  setProjectRetention(projectid: string, retentionMs: number): Promise<RetentionReport>;
  /** Back to the service default; whether the project had a retention of its own. */
  clearProjectRetention(projectid: string): Promise<boolean>;
}

export interface RetentionDeps {
  store: ProjectRetentionStore;
  /** POINT_RETENTION in ms; undefined: `unlimited`. */
  serviceDefaultMs: number | undefined;
  changes: ChangeFeed;
  cache: ReadCacheOptions;
}

const textOf = (ms: number | undefined) => (ms === undefined ? 'unlimited' : formatTtl(ms));

/**
 * Every shadow write asks for its project's retention, so it is cached like schemas (cluster/shared-read-cache.ts):
 * a change drops this node's copy at once and tells the other nodes; a notice they miss is made good when their copy
 * expires. A change applies to points written afterwards: a point's expiry is fixed when it is written.
 */
export function createRetention({ store, serviceDefaultMs, changes, cache: options }: RetentionDeps): Retention {
  const cache = createSharedReadCache<number | undefined>('retention', changes, options);
  const projectLevel = (projectid: string) => cache.read(projectid, () => store.getRetention(projectid));

  async function report(projectid: string): Promise<RetentionReport> {
    const own = await projectLevel(projectid);
    const effective = own ?? serviceDefaultMs;
    return {
      projectid,
      retention: own === undefined ? null : formatTtl(own),
      serviceDefault: textOf(serviceDefaultMs),
      effective: textOf(effective),
      effectiveMs: effective ?? null,
    };
  }

  return {
    async retentionOf(projectid) {
      return (await projectLevel(projectid)) ?? serviceDefaultMs;
    },
    report,
    async setProjectRetention(projectid, retentionMs) {
      await cache.changing(projectid, () => store.putRetention(projectid, retentionMs));
      return report(projectid);
    },
    clearProjectRetention: (projectid) => cache.changing(projectid, () => store.deleteRetention(projectid)),
  };
}
