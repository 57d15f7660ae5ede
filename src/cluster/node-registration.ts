import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ReadinessCheck } from '../health/port';
import { NodeRecord, NodeRegistry } from './port';

/** Timings of node registrations (docs/production.md "Shared state"), in the units their names say. */
export const NODE_REGISTRATION = {
  /** A running node renews its registration this often. */
  heartbeatMs: 10_000,
  /** A registration lapses this long after its last renewal: a crashed node's NODE_ID is free again after it. */
  ttlSeconds: 30,
};

/** The incarnations of the registrations this process holds: a fact about the process, hence kept for the process. */
const heldInThisProcess = new Set<string>();

/** Another running node holds this NODE_ID: the start stops with this one-line message (src/main.ts). */
export class NodeIdInUseError extends Error {}

export interface NodeRegistration {
  /** Fails while this node may not be the only one with its NODE_ID (taken over, or not renewed for a TTL). */
  readonly readiness: ReadinessCheck;
  /** Stops renewing and frees the NODE_ID at once, for a restart; idempotent. */
  close(): Promise<void>;
}

export interface RegisterNodeOptions {
  registry: NodeRegistry;
  nodeId: string;
  logger: Logger;
  now?: () => number;
  timings?: Partial<typeof NODE_REGISTRATION>;
}

function inUse(holder: NodeRecord, ttlSeconds: number, now: number): NodeIdInUseError {
  const ago = Math.max(0, Math.round((now - holder.heartbeat) / 1000));
  return new NodeIdInUseError(
    `NODE_ID ${holder.nodeId} is in use by a running node (host ${holder.host}, pid ${holder.pid}, ` +
      `started ${new Date(holder.started).toISOString()}, last heartbeat ${ago} s ago); give each node its own NODE_ID, ` +
      `or if that node has crashed, start this one ${ttlSeconds} s after its last heartbeat`,
  );
}

/**
 * True when `holder` ran on this host as a process that is gone: it crashed before it could release its NODE_ID, and
 * a restart may take the id over at once instead of after the TTL (its wills and queues are then its to finish). A
 * holder on another host, or a live process here, is never taken over. A container restarts its service with the same
 * pid, so a holder with this process's own pid is an earlier run, unless it is a registration this process holds (tests
 * run several nodes in one process).
 */
function crashedHere(holder: NodeRecord): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return !heldInThisProcess.has(holder.incarnation);
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Registers this node under its NODE_ID in the shared store (STORE=cassandra) before it serves anything, and keeps
 * the registration alive: two nodes with one NODE_ID would take each other's backbone session and share quota
 * ledger rows, so the second refuses to start. A node that lost its registration (cut off from Cassandra for a TTL,
 * then replaced) keeps running but fails /readyz, so balancers take it out.
 */
export async function registerNode({ registry, nodeId, logger, now = Date.now, timings }: RegisterNodeOptions): Promise<NodeRegistration> {
  const { heartbeatMs, ttlSeconds } = { ...NODE_REGISTRATION, ...timings };
  const started = now();
  const record: NodeRecord = { nodeId, incarnation: randomUUID(), host: hostname(), pid: process.pid, started, heartbeat: started };
  let claimed = await registry.claim(record, ttlSeconds);
  if (!claimed.held && crashedHere(claimed.holder)) {
    logger.warn({ nodeId, holder: claimed.holder }, 'NODE_ID held by a process of this host that is gone: taking it over');
    await registry.release(claimed.holder);
    claimed = await registry.claim(record, ttlSeconds);
  }
  if (!claimed.held) throw inUse(claimed.holder, ttlSeconds, now());
  heldInThisProcess.add(record.incarnation);

  let renewedAt = started;
  let takenBy: NodeRecord | undefined;
  let renewing = false;
  let closing: Promise<void> | undefined;
  const log = logger.child({ nodeId });

  const timer = setInterval(() => {
    if (renewing || takenBy) return;
    renewing = true;
    const heartbeat = now();
    registry
      .renew({ ...record, heartbeat }, ttlSeconds)
      .then((outcome) => {
        if (outcome.held) renewedAt = heartbeat;
        else if (!closing) {
          takenBy = outcome.holder;
          log.error({ holder: outcome.holder }, `${inUse(outcome.holder, ttlSeconds, now()).message}: this node is not ready any more`);
        }
      })
      .catch((err: unknown) => log.warn({ err }, 'node registration not renewed; retrying'))
      .finally(() => (renewing = false));
  }, heartbeatMs);
  timer.unref();

  return {
    readiness: {
      name: 'node-registration',
      async check() {
        if (takenBy) throw new Error(`NODE_ID ${nodeId} was taken over by host ${takenBy.host}, pid ${takenBy.pid}`);
        const silent = now() - renewedAt;
        if (silent > ttlSeconds * 1000) throw new Error(`NODE_ID ${nodeId}: registration not renewed for ${Math.round(silent / 1000)} s`);
      },
    },
    close: () =>
      (closing ??= (async () => {
        clearInterval(timer);
        heldInThisProcess.delete(record.incarnation);
        if (takenBy) return;
        await registry.release(record).catch((err: unknown) => log.warn({ err }, 'node registration not released; it lapses by itself'));
      })()),
  };
}
