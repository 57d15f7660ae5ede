import { ChangeFeed } from '../cluster/port';
import { createReadCache, ReadCacheOptions } from '../cluster/read-cache';
import { RevokedTokens } from './port';

/**
 * Revocations as a node of a cluster reads them: every data-store call with a user token asks whether its `jti` is
 * revoked, so each answer is kept (src/cluster/read-cache.ts). A revocation drops this node's copy at once and tells
 * the other nodes to drop theirs (`user-token`); a notice they miss is made good when their copy expires.
 */
export function cachedRevokedTokens(store: RevokedTokens, changes: ChangeFeed, options: ReadCacheOptions): RevokedTokens {
  const cache = createReadCache<boolean>(options);
  changes.listen((notice) => {
    if (notice === 'all') cache.clear();
    else if (notice.kind === 'user-token') cache.invalidate(notice.key);
  });
  return {
    async revoke(jti, expiresAt) {
      try {
        await store.revoke(jti, expiresAt);
      } finally {
        // Whether it failed or not: a failed write may still have been applied.
        cache.invalidate(jti);
        changes.announce({ kind: 'user-token', key: jti });
      }
    },
    isRevoked: (jti) => cache.get(jti, () => store.isRevoked(jti)),
  };
}
