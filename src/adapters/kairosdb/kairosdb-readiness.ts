import { ReadinessCheck } from '../../health/port';
import { KairosDbClient } from './kairosdb-client';

/**
 * KairosDB's own health check (reference §8): `GET /api/v1/health/check` answers 204 when its checks pass, one of
 * which queries its datastore, so a KairosDB whose Cassandra is down counts as not ready. About 20 ms here.
 */
export function kairosDbReadinessCheck(client: KairosDbClient): ReadinessCheck {
  return {
    name: 'kairosdb',
    async check() {
      const res = await client.request('GET', '/health/check');
      if (res.status !== 204) throw new Error(`KairosDB health check answered ${res.status}`);
    },
  };
}
