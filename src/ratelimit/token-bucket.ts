/**
 * A token bucket: it holds up to `burst` tokens and refills at `ratePerSecond`, continuously; each request takes one
 * token, and a request finding less than one is refused. Pure: the caller keeps the state and passes the clock.
 */
export interface BucketLimits {
  /** Tokens added per second; may be fractional. */
  readonly ratePerSecond: number;
  /** Capacity: how many requests may arrive at once after a quiet spell. */
  readonly burst: number;
}

export interface BucketState {
  readonly tokens: number;
  /** When `tokens` was last brought up to date, epoch ms. */
  readonly at: number;
}

export type TakeResult =
  | { readonly allowed: true; readonly state: BucketState }
  | { readonly allowed: false; readonly state: BucketState; /** Until one token is back. */ readonly retryAfterMs: number };

/** A bucket not seen before starts full. */
export const fullBucket = (limits: BucketLimits, now: number): BucketState => ({ tokens: limits.burst, at: now });

/** The tokens the bucket holds at `now`. A clock that went backwards adds nothing. */
export function tokensAt(state: BucketState, limits: BucketLimits, now: number): number {
  const elapsedMs = Math.max(0, now - state.at);
  return Math.min(limits.burst, state.tokens + (elapsedMs * limits.ratePerSecond) / 1000);
}

/** Takes one token if there is one. */
export function takeToken(state: BucketState, limits: BucketLimits, now: number): TakeResult {
  const tokens = tokensAt(state, limits, now);
  if (tokens >= 1) return { allowed: true, state: { tokens: tokens - 1, at: now } };
  return { allowed: false, state: { tokens, at: now }, retryAfterMs: ((1 - tokens) * 1000) / limits.ratePerSecond };
}
