import { BucketLimits, BucketState, fullBucket, takeToken, tokensAt } from './token-bucket';

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; /** Whole seconds, at least 1. */ readonly retryAfterSeconds: number };

/** One token bucket per key (a deviceid), so one busy key never uses up another's budget. */
export interface KeyedRateLimiter {
  readonly limits: BucketLimits;
  take(key: string): RateDecision;
  /**
   * Takes `tokens` the key spent elsewhere (another node of a cluster, ratelimit/shared-rate-limit.ts), whether or
   * not the bucket holds them: it may owe up to one burst, which it pays back as it refills.
   */
  spend(key: string, tokens: number): void;
  /** Keys with a bucket in memory; idle keys are dropped (see sweep below). */
  size(): number;
}

export interface KeyedRateLimiterOptions extends BucketLimits {
  now?: () => number;
  /** How often, at most, `take` looks for idle keys to drop. */
  sweepEveryMs?: number;
}

const ALLOWED: RateDecision = { allowed: true };

/**
 * `ratePerSecond` 0 turns limiting off: every take is allowed and nothing is kept. Memory stays bounded by the keys
 * active in the last few seconds: a bucket that has refilled to `burst` is the same as no bucket (a new key starts
 * full), so such buckets are dropped by a sweep that `take` runs at most every `sweepEveryMs`. No timers to stop.
 */
export function createKeyedRateLimiter(options: KeyedRateLimiterOptions): KeyedRateLimiter {
  const { ratePerSecond, burst, now = Date.now, sweepEveryMs = 60_000 } = options;
  const limits: BucketLimits = { ratePerSecond, burst };
  if (ratePerSecond === 0) return { limits, take: () => ALLOWED, spend: () => undefined, size: () => 0 };
  if (!(ratePerSecond > 0) || !(burst >= 1)) throw new RangeError('ratePerSecond must be >= 0 and burst >= 1');

  const buckets = new Map<string, BucketState>();
  let lastSweep = now();

  function sweep(at: number): void {
    lastSweep = at;
    for (const [key, state] of buckets) {
      if (tokensAt(state, limits, at) >= burst) buckets.delete(key);
    }
  }

  return {
    limits,
    take(key) {
      const at = now();
      if (at - lastSweep >= sweepEveryMs) sweep(at);
      const result = takeToken(buckets.get(key) ?? fullBucket(limits, at), limits, at);
      buckets.set(key, result.state);
      if (result.allowed) return ALLOWED;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) };
    },
    spend(key, tokens) {
      const at = now();
      const held = tokensAt(buckets.get(key) ?? fullBucket(limits, at), limits, at);
      buckets.set(key, { tokens: Math.max(-burst, held - tokens), at });
    },
    size: () => buckets.size,
  };
}
