/**
 * A fixed number of slots shared fairly between tenants (issue 10): a tenant holds at most `perTenant` of them, its
 * further calls wait in a queue of its own, and a freed slot goes to the waiting tenant that holds the fewest slots;
 * between tenants that hold as many, to the one served least recently (so they take turns, round robin, and a
 * newcomer goes first). So a tenant that floods waits behind itself, while another tenant's call gets the next free
 * slot: the data-store queries (per project or group) and the script sandbox's threads are shared so.
 */
export interface FairSlotsOptions {
  /** Slots at once, over every tenant. */
  readonly slots: number;
  /** Slots one tenant may hold at once. */
  readonly perTenant: number;
  /** Calls one tenant may have waiting; beyond it acquire refuses at once. Infinity: no bound. */
  readonly queuePerTenant: number;
  /** How long a call may wait for its slot before it is refused. Infinity: as long as it takes. */
  readonly maxWaitMs: number;
}

export interface FairSlots {
  /**
   * Resolves, once the tenant's turn comes, with the function that frees the slot (idempotent). Rejects with
   * SlotRefusedError when the tenant's queue is full or the wait too long, or with the signal's reason once it aborts.
   */
  acquire(tenant: string, signal?: AbortSignal): Promise<() => void>;
  /** Slots held and calls waiting, over every tenant. */
  stats(): { readonly running: number; readonly waiting: number };
}

export class SlotRefusedError extends Error {
  constructor(readonly reason: 'queue-full' | 'wait-too-long') {
    super(reason === 'queue-full' ? 'the queue is full' : 'the wait for a slot was too long');
    this.name = 'SlotRefusedError';
  }
}

interface Waiter {
  readonly grant: () => void;
  readonly fail: (err: unknown) => void;
}

export function createFairSlots(options: FairSlotsOptions): FairSlots {
  const { slots, perTenant, queuePerTenant, maxWaitMs } = options;
  if (!(slots >= 1) || !(perTenant >= 1) || !(queuePerTenant >= 0) || !(maxWaitMs > 0)) {
    throw new RangeError('slots and perTenant must be >= 1, queuePerTenant >= 0, maxWaitMs > 0');
  }
  const held = new Map<string, number>();
  /** Tenants with waiting calls, each with its calls in arrival order. */
  const queues = new Map<string, Waiter[]>();
  /** When each tenant holding or awaiting a slot was last given one (a count of grants); forgotten once it has neither. */
  const lastServed = new Map<string, number>();
  let grants = 0;
  let running = 0;
  let waiting = 0;

  const heldBy = (tenant: string) => held.get(tenant) ?? 0;

  const servedAt = (tenant: string) => lastServed.get(tenant) ?? -1;

  function take(tenant: string): () => void {
    running++;
    held.set(tenant, heldBy(tenant) + 1);
    lastServed.set(tenant, grants++);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      running--;
      const left = heldBy(tenant) - 1;
      if (left === 0) held.delete(tenant);
      else held.set(tenant, left);
      forgetIfIdle(tenant);
      serve();
    };
  }

  function forgetIfIdle(tenant: string): void {
    if (!held.has(tenant) && !queues.has(tenant)) lastServed.delete(tenant);
  }

  /** Gives free slots to waiting calls, one tenant after the other. */
  function serve(): void {
    while (running < slots) {
      let next: string | undefined;
      for (const tenant of queues.keys()) {
        const count = heldBy(tenant);
        if (count >= perTenant) continue;
        if (next === undefined || count < heldBy(next) || (count === heldBy(next) && servedAt(tenant) < servedAt(next))) next = tenant;
      }
      if (next === undefined) return;
      const queue = queues.get(next) as Waiter[];
      const waiter = queue.shift() as Waiter;
      if (queue.length === 0) queues.delete(next);
      waiting--;
      waiter.grant();
    }
  }

  return {
    acquire(tenant, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (running < slots && heldBy(tenant) < perTenant && !queues.has(tenant)) return Promise.resolve(take(tenant));
      const queue = queues.get(tenant) ?? [];
      if (queue.length >= queuePerTenant) return Promise.reject(new SlotRefusedError('queue-full'));
      return new Promise((resolve, reject) => {
        const leave = () => {
          const at = queue.indexOf(waiter);
          if (at < 0) return;
          queue.splice(at, 1);
          waiting--;
          if (queue.length === 0 && queues.get(tenant) === queue) queues.delete(tenant);
          forgetIfIdle(tenant);
        };
        const onAbort = () => waiter.fail(signal?.reason);
        const timer = Number.isFinite(maxWaitMs) ? setTimeout(() => waiter.fail(new SlotRefusedError('wait-too-long')), maxWaitMs) : undefined;
        timer?.unref();
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        const waiter: Waiter = {
          grant: () => {
            done();
            resolve(take(tenant));
          },
          fail: (err) => {
            done();
            leave();
            reject(err);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
        waiting++;
        if (!queues.has(tenant)) queues.set(tenant, queue);
      });
    },
    stats: () => ({ running, waiting }),
  };
}
