import { QuotaGate } from './port';
import { blocksOf, MESSAGE_BLOCK, monthOf } from './quota';

/**
 * API calls are metered alike on every transport that serves the Device API, REST and CoAP (netpie reference §9,
 * "API calls"): the request, 1 per started 4 KiB, is charged before the call, which is refused with
 * QUOTA_EXCEEDED when the project's quota is spent; the reply, 1 per started 4 KiB, is charged after it (a failed
 * call's reply counts as one block, the minimum).
 */
export interface ApiCallMeter {
  metered<T>(projectid: string, requestBytes: number, call: () => Promise<T>, replyBytes: () => number): Promise<T>;
}

export function createApiCallMeter(quotas: QuotaGate, now: () => number): ApiCallMeter {
  /**
   * Project and month pairs whose counters and limits a `spend` has loaded: from then on `spendNow` makes the same
   * check on the counters in memory without a promise per call (issue 12). Another month loads again, so its first
   * call is checked like the first call of all.
   */
  const loaded = new Set<string>();
  let loadedMonth = '';

  async function charge(projectid: string, requestBytes: number): Promise<void> {
    const at = now();
    const amounts = { apiCalls: blocksOf(requestBytes, MESSAGE_BLOCK) };
    const month = monthOf(at);
    if (month !== loadedMonth) {
      loaded.clear();
      loadedMonth = month;
    }
    if (loaded.has(projectid)) {
      const refusal = quotas.spendNow(projectid, amounts, at);
      if (refusal) throw refusal;
      return;
    }
    await quotas.spend(projectid, amounts, at);
    loaded.add(projectid);
  }

  return {
    async metered(projectid, requestBytes, call, replyBytes) {
      await charge(projectid, requestBytes);
      try {
        return await call();
      } finally {
        quotas.record(projectid, { apiCalls: blocksOf(replyBytes(), MESSAGE_BLOCK) }, now());
      }
    },
  };
}
