/**
 * How many failed credential checks are tolerated before the guesser is refused (docs/operations.md "Security",
 * "Guessing"), counted over a fixed window per key:
 * - per (source address, target): one address guessing one device's (or the admin's) credentials;
 * - per source: one address guessing many targets; high enough that a fleet behind one NAT address is not locked out
 *   by one bad device, whose own pair stops counting once it is refused;
 * - per target: many addresses guessing one target. Over it, only the addresses that already failed against the
 *   target are refused: the right credentials from an address that never failed are still let in.
 * Refused attempts are not counted again, so a refused guesser cannot keep a window open.
 */
export interface FailureLimits {
  windowMs: number;
  perPair: number;
  perSource: number;
  perTarget: number;
  maxKeys: number;
}

export const FAILURE_LIMITS: Readonly<FailureLimits> = {
  windowMs: 10 * 60_000,
  perPair: 10,
  perSource: 200,
  perTarget: 100,
  /** Keys kept at most per kind; beyond, the oldest windows are forgotten (memory stays bounded under a flood). */
  maxKeys: 100_000,
};

/** Why an attempt is refused before its credentials are even checked. */
export type Throttled = { why: 'pair' | 'source' | 'target'; retryAfterSeconds: number };

interface Window {
  count: number;
  endsAt: number;
}

/** Fixed windows per key, oldest first, bounded. */
function windows(limits: Pick<FailureLimits, 'windowMs' | 'maxKeys'>) {
  const map = new Map<string, Window>();
  const live = (key: string, now: number): Window | undefined => {
    const w = map.get(key);
    if (w && w.endsAt <= now) {
      map.delete(key);
      return undefined;
    }
    return w;
  };
  return {
    count: (key: string, now: number) => live(key, now)?.count ?? 0,
    endsAt: (key: string, now: number) => live(key, now)?.endsAt ?? now,
    add(key: string, now: number): void {
      const w = live(key, now);
      if (w) return void w.count++;
      if (map.size >= limits.maxKeys) map.delete(map.keys().next().value as string);
      map.set(key, { count: 1, endsAt: now + limits.windowMs });
    },
  };
}

/**
 * Counts failed credential checks by source address and target (a device id, or `admin`), one node's memory, and
 * says which attempts to refuse before checking anything. Every door of the service asks it (devices/admission.ts for
 * REST, CoAP, MQTT and the data store; http/admin-auth.ts for the admin API and the console's log-in).
 */
export function createFailureThrottle(now: () => number, limits: FailureLimits = FAILURE_LIMITS) {
  const pairs = windows(limits);
  const sources = windows(limits);
  const targets = windows(limits);
  const pairKey = (source: string, target: string) => `${source}\u0000${target}`;
  const seconds = (endsAt: number) => Math.max(1, Math.ceil((endsAt - now()) / 1000));

  return {
    /** Undefined when the attempt may be checked; else why it is refused and for how long. */
    check(source: string, target: string): Throttled | undefined {
      const at = now();
      const pair = pairKey(source, target);
      if (pairs.count(pair, at) >= limits.perPair) return { why: 'pair', retryAfterSeconds: seconds(pairs.endsAt(pair, at)) };
      if (sources.count(source, at) >= limits.perSource) return { why: 'source', retryAfterSeconds: seconds(sources.endsAt(source, at)) };
      if (targets.count(target, at) >= limits.perTarget && pairs.count(pair, at) > 0) {
        return { why: 'target', retryAfterSeconds: seconds(targets.endsAt(target, at)) };
      }
      return undefined;
    },
    /** One failed check of `source` against `target`. */
    failed(source: string, target: string): void {
      const at = now();
      pairs.add(pairKey(source, target), at);
      sources.add(source, at);
      targets.add(target, at);
    },
  };
}

export type FailureThrottle = ReturnType<typeof createFailureThrottle>;
