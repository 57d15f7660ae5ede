import { KeyedRateLimiter } from './keyed-rate-limiter';

/** Tokens each key took on one node since its last report, as the other nodes are told. */
export type RateUsage = Record<string, number>;

/** How the nodes of a cluster tell each other what their devices took (the MQTT backbone, adapters/backbone). */
export interface RateUsageExchange {
  /** Sends this node's usage to the other nodes; dropped while they cannot be reached. */
  report(usage: RateUsage): void;
  /** Calls `listener` with each other node's report. */
  listen(listener: (usage: RateUsage) => void): void;
}

/** How often a node reports, and so how stale the other nodes' view of a device's bucket may be. */
export const RATE_REPORT_MS = 100;

/**
 * One per-device budget for the whole cluster (issue 21 §3): each node keeps its own buckets and takes from them at
 * once (no store is asked per call), reports every RATE_REPORT_MS what its devices took, and takes what the other
 * nodes report from its own buckets. A device spread over several nodes (HTTP round robin, REST on one and MQTT on
 * another) so gets its budget once, give or take what it took elsewhere in the last report interval: the overshoot is
 * at most rate x interval per other node plus what a burst lets through before the first report arrives
 * (docs/operations.md "Rate limits").
 */
export function createSharedRateLimiter(local: KeyedRateLimiter, exchange: RateUsageExchange, reportEveryMs = RATE_REPORT_MS): KeyedRateLimiter {
  let taken = new Map<string, number>();
  let pending = false;
  // A report of what was taken since the last one, sent once per interval at most (unref'd: never holds a stop).
  const flush = () => {
    pending = false;
    const usage = Object.fromEntries(taken);
    taken = new Map();
    exchange.report(usage);
  };
  exchange.listen((usage) => {
    for (const [key, tokens] of Object.entries(usage)) {
      if (Number.isFinite(tokens) && tokens > 0) local.spend(key, tokens);
    }
  });
  return {
    limits: local.limits,
    take(key) {
      const decision = local.take(key);
      if (decision.allowed && local.limits.ratePerSecond > 0) {
        taken.set(key, (taken.get(key) ?? 0) + 1);
        if (!pending) {
          pending = true;
          setTimeout(flush, reportEveryMs).unref();
        }
      }
      return decision;
    },
    spend: (key, tokens) => local.spend(key, tokens),
    size: () => local.size(),
  };
}
