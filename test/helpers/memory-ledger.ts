import { ChangeFeed, ChangeNotice } from '../../src/cluster/port';
import { LedgerEntry, QuotaLedger, QuotaLimitStore } from '../../src/quotas/port';
import { Limits } from '../../src/quotas/quota';

/**
 * The quota ledger's contract in memory (test/integration/contracts/quota-ledger.contract.ts holds Cassandra's to
 * it), for unit tests of the quota service: each call yields to the event loop, as a remote store would, so nodes
 * interleave. `failGrants` injects compare-and-sets that fail as if another node had won, `down` an outage.
 * With `singleNode`, it is the ledger of that node alone (QuotaLedger.singleNode), as SQLite's.
 */
export function memoryLedger(opts: { singleNode?: string } = {}) {
  const partitions = new Map<string, { version: number; rows: Map<string, LedgerEntry> }>();
  const partitionOf = (projectid: string, month: string) => {
    const key = `${projectid}/${month}`;
    let p = partitions.get(key);
    if (!p) partitions.set(key, (p = { version: 0, rows: new Map() }));
    return p;
  };
  const rowOf = (p: { rows: Map<string, LedgerEntry> }, quota: LedgerEntry['quota'], node: string) => {
    const key = `${quota}/${node}`;
    let row = p.rows.get(key);
    if (!row) p.rows.set(key, (row = { quota, node, used: 0, granted: 0 }));
    return row;
  };
  let down = false;
  const tick = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (down) throw new Error('ledger unreachable');
  };
  let failNextGrants = 0;
  const ledger: QuotaLedger = {
    singleNode: opts.singleNode,
    async read(projectid, month) {
      await tick();
      const p = partitionOf(projectid, month);
      return { version: p.version, entries: [...p.rows.values()].map((e) => ({ ...e })) };
    },
    async saveUsed(node, counts) {
      await tick();
      for (const c of counts) rowOf(partitionOf(c.projectid, c.month), c.quota, node).used = c.used;
    },
    async setGranted(projectid, month, quota, node, granted, version) {
      await tick();
      const p = partitionOf(projectid, month);
      if (failNextGrants > 0) {
        failNextGrants--;
        p.version++;
        return false;
      }
      if (p.version !== version) return false;
      rowOf(p, quota, node).granted = granted;
      p.version++;
      return true;
    },
  };
  return {
    ledger,
    /** Every node's rows of a project's month. */
    rows: (projectid: string, month: string) => [...partitionOf(projectid, month).rows.values()],
    failGrants(n: number) {
      failNextGrants = n;
    },
    /** Every call fails while true, as with the store unreachable. */
    down(unreachable: boolean) {
      down = unreachable;
    },
  };
}

export function memoryLimits(): QuotaLimitStore {
  const limits = new Map<string, Limits>();
  return {
    getLimits: async (projectid) => ({ ...(limits.get(projectid) ?? {}) }),
    setLimits: async (projectid, l) => void limits.set(projectid, { ...l }),
  };
}

/** Change notices between the nodes of one test, delivered at once (`cut` loses them, as a broken backbone would). */
export function memoryFeed() {
  const nodes: ((notice: ChangeNotice | 'all') => void)[][] = [];
  let cut = false;
  return {
    /** The feed of one more node. */
    node(): ChangeFeed {
      const listeners: ((notice: ChangeNotice | 'all') => void)[] = [];
      nodes.push(listeners);
      return {
        announce(notice) {
          if (!cut) for (const other of nodes) if (other !== listeners) other.forEach((l) => l(notice));
        },
        listen: (listener) => void listeners.push(listener),
      };
    },
    cut(lost: boolean) {
      cut = lost;
    },
  };
}
