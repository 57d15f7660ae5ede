import * as t from 'io-ts';
import { parseTtl } from './durations';

/** The service's level of retention and how often the embedded engine reclaims the space of expired points. */
export interface RetentionSettings {
  /** POINT_RETENTION in ms: how long points are kept when neither their field nor their project says; undefined: until deleted. */
  readonly defaultMs: number | undefined;
  /**
   * POINT_CLEANUP_INTERVAL_MS: the embedded engine drops the blocks whose points have all expired this often, so their
   * space is reused within one period of their last point's expiry. Expired points are never answered meanwhile.
   */
  readonly cleanupEveryMs: number;
}

export const DEFAULT_RETENTION_SETTINGS: RetentionSettings = { defaultMs: undefined, cleanupEveryMs: 5 * 60_000 };

const UNLIMITED = 'unlimited';

/** POINT_RETENTION's text: `unlimited`, or a duration as NETPIE writes a ttl (`30d`, `12h`, `3000` = 3000 ms). */
export const RetentionText = new t.Type<number | undefined, string, unknown>(
  'Retention',
  (u): u is number | undefined => u === undefined || typeof u === 'number',
  (u, c) => {
    if (u === UNLIMITED) return t.success(undefined);
    if (typeof u !== 'string') return t.failure(u, c, 'must be unlimited or a duration such as 30d');
    const parsed = parseTtl(u);
    return 'ms' in parsed ? t.success(parsed.ms) : t.failure(u, c, `must be unlimited, or a duration that ${parsed.problem}`);
  },
  (ms) => (ms === undefined ? UNLIMITED : String(ms)),
);
