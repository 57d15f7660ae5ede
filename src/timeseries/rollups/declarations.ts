import { ChangeFeed } from '../../cluster/port';
import { ReadCacheOptions } from '../../cluster/read-cache';
import { createSharedReadCache } from '../../cluster/shared-read-cache';
import { RollupStore } from './port';
import { RollupDeclaration, RollupTier } from './tiers';

/** Projects' roll-up declarations, read through a cache every node keeps (every query of a project asks). */
export interface RollupDeclarations {
  declarationOf(projectid: string): Promise<RollupDeclaration | undefined>;
  /** Stores a new declaration, not built yet; the one it replaced. */
  declare(projectid: string, tiers: readonly RollupTier[]): Promise<{ previous?: RollupDeclaration; declaration: RollupDeclaration }>;
  /** The declaration removed, if any. */
  remove(projectid: string): Promise<RollupDeclaration | undefined>;
  markBuilt(projectid: string, declaredAt: number): Promise<void>;
  listUnbuilt(): Promise<string[]>;
}

export interface RollupDeclarationsDeps {
  store: RollupStore;
  changes: ChangeFeed;
  cache: ReadCacheOptions;
}

/**
 * Cached like schemas and retention (schema/cached-schema-store.ts, retention-policy.ts): a change drops this node's
 * copy at once and tells the other nodes; a notice they miss is made good when their copy expires.
 */
export function createRollupDeclarations({ store, changes, cache: options }: RollupDeclarationsDeps): RollupDeclarations {
  const cache = createSharedReadCache<RollupDeclaration | undefined>('rollups', changes, options);
  const changing = cache.changing;
  const declarationOf = (projectid: string) => cache.read(projectid, () => store.getRollups(projectid));
  return {
    declarationOf,
    async declare(projectid, tiers) {
      const previous = await store.getRollups(projectid);
      // Strictly later than the previous one: markBuilt of a build of the previous one must not match.
      const declaredAt = Math.max(options.now(), (previous?.declaredAt ?? 0) + 1);
      const declaration: RollupDeclaration = { tiers, declaredAt, builtAt: undefined };
      await changing(projectid, () => store.putRollups(projectid, declaration));
      return { previous, declaration };
    },
    async remove(projectid) {
      const previous = await store.getRollups(projectid);
      await changing(projectid, () => store.deleteRollups(projectid));
      return previous;
    },
    async markBuilt(projectid, declaredAt) {
      await changing(projectid, () => store.markBuilt(projectid, declaredAt, options.now()));
    },
    listUnbuilt: () => store.listUnbuilt(),
  };
}
