import type { Aedes, Client } from 'aedes';
import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { DeviceStore } from '../devices/port';
import { MessageBus } from '../messaging/port';
import { messagePropertiesOf } from '../messaging/properties';
import { deviceTopic, internalTopic, MSG, topicProblem } from '../messaging/topics';
import { SessionPacket, SessionStore } from '../sessions/port';
import { publishErrorNotice } from './error-notice';
import { MessagePipeline } from './message-pipeline';
import { createSessionTimers } from './session-timers';

/** How often expired sessions and orphaned wills are looked for. */
export const UPKEEP_INTERVAL_MS = 60_000;
/**
 * How long a node the backbone says is gone (its Last Will, `bye/{node}`) must stay away before the others take over
 * the sessions and wills its runs left. The backbone broker sends that will once it finds the connection gone (at once
 * for a killed process, within 15 s for a vanished host); the wait keeps a node that was only cut off from the backbone,
 * and comes back, from having its live devices' sessions timed out under it.
 */
export const NODE_GONE_AFTER_MS = 10_000;

export interface SessionUpkeepDeps {
  aedes: Aedes;
  store: SessionStore;
  /** True when the nodes of a cluster share the store (see orphanedBy). */
  sharedStore: boolean;
  /** This node's NODE_ID; the aedes id is `{nodeId}:{boot}`. */
  nodeId: string;
  pipeline: MessagePipeline;
  /** This node's connections only. */
  bus: MessageBus;
  devices: DeviceStore;
  /** True while the device is connected to any node. */
  isConnected(deviceid: string): boolean;
  expirySeconds: number;
  queueLimit: number;
  logger: Logger;
  now(): number;
}

export interface SessionUpkeep {
  /**
   * Catches up with what earlier runs left (see orphanedBy): the sessions and wills of connections a crash cut (a will
   * with a delay waits for it from now), and the deadlines that passed meanwhile. What fails waits for the next round.
   */
  publishOrphanedWills(): Promise<void>;
  /** Ends persistent sessions unused for SESSION_EXPIRY_SECONDS. */
  expireSessions(): Promise<void>;
  /** Resolves once the ends of connections closed so far are recorded (shutdown: before the store closes). */
  settled(): Promise<void>;
  /**
   * The backbone says another node left (stopped, or killed: its Last Will). Unless it is back within
   * NODE_GONE_AFTER_MS, its runs count as gone (see orphanedBy) and their sessions and wills are taken over.
   */
  nodeLeft(node: string): void;
  /** Another node is on the backbone (again). */
  nodeBack(node: string): void;
  close(): void;
}

/**
 * What keeps persistent sessions within their bounds (docs/mqtt.md "Persistent sessions"): their last use and MQTT 5
 * deadlines (session-timers.ts), the notice of dropped messages when a device returns, expiry itself, and the wills
 * of connections a crash cut.
 */
export function createSessionUpkeep(deps: SessionUpkeepDeps): SessionUpkeep {
  const { aedes, store, logger } = deps;
  aedes.on('clientReady', (client: Client) => {
    if (!client.clean) void tellDropped(client.id);
  });

  async function tellDropped(deviceid: string): Promise<void> {
    const dropped = await store.takeDropped(deviceid).catch(() => 0);
    if (dropped === 0) return;
    const notice = new AppError(
      'MESSAGES_DROPPED',
      `${dropped} queued messages were dropped while this device was away: a session queues at most ${deps.queueLimit}`,
      { dropped },
    );
    await publishErrorNotice(deps.bus, deviceid, notice, logger);
  }

  /**
   * A will is an orphan when the process that stored it is gone without publishing it (killed, crashed). With a store
   * of its own, any owner but this process is gone. With a shared one, this node's earlier runs (one process per
   * NODE_ID) and the runs of a node the backbone said is gone and that stayed away (nodeLeft); any other node's will
   * is that node's to publish, or is replaced when its device connects again. The store hands each session and will
   * to one node only, however many take over at once.
   */
  const gone = new Set<string>();
  const leaving = new Map<string, NodeJS.Timeout>();
  const orphanedBy = (owner: string) =>
    owner !== aedes.id && (!deps.sharedStore || owner.startsWith(`${deps.nodeId}:`) || gone.has(nodeOfRun(owner)));

  /**
   * Publishes a stored will as aedes does at close (authorize-publish.ts), with its MQTT 5 properties but not its
   * delay: `@msg/...` of the device's group, through the message pipeline. Resolves false when the device is gone.
   */
  async function publishWill(will: SessionPacket): Promise<boolean> {
    const device = await deps.devices.getDevice(will.clientId!);
    const parsed = device && will.topic ? deviceTopic(will.topic) : undefined;
    if (device && parsed?.family === MSG && !topicProblem(parsed.rest, false, MSG)) {
      const payload = Buffer.isBuffer(will.payload) ? will.payload : Buffer.from(will.payload ?? '');
      const properties = messagePropertiesOf(will.properties as object | undefined);
      await deps.pipeline.accept({ topic: internalTopic(device, MSG, parsed.rest), payload, qos: will.qos ?? 0, retain: will.retain ?? false, properties })
        .catch((err: unknown) => {
          // Over the retained limit: published as the will's rules allow, nowhere; any other refusal is tried again.
          if (!(err instanceof AppError && err.code === 'RETAINED_LIMIT')) throw err;
        });
    }
    return device !== undefined;
  }

  const timers = createSessionTimers({
    aedes,
    store,
    publishWill: async (will) => {
      const published = await publishWill(will);
      logger.info({ deviceid: will.clientId, published }, 'stored will published');
    },
    isConnected: deps.isConnected,
    logger,
    now: deps.now,
  });

  /**
   * A will a crash left is due now, or, with a Will Delay Interval (MQTT 5), that long after the crash was found, at
   * most when its session ends (min(delay, expiry) [MQTT-3.1.3-9]; no session left: now). The timers publish it, once,
   * unless the device has stored another will meanwhile (delayWill is for the will's owner only).
   */
  async function delayOrphanedWill(will: SessionPacket, sessionDeadlines: Map<string, number>): Promise<void> {
    const deviceid = will.clientId!;
    const delay = (will.properties as { willDelayInterval?: number } | undefined)?.willDelayInterval ?? 0;
    const now = deps.now();
    // The deadline this node gave, or the one another node taking over the same run gave first.
    const deadline = sessionDeadlines.get(deviceid) ?? (delay > 0 ? await store.sessionDeadline(deviceid) : undefined);
    const due = Math.min(now + delay * 1000, deadline ?? now);
    if (await store.delayWill({ id: deviceid, brokerId: will.brokerId }, due)) {
      logger.info({ deviceid, inMs: due - now }, 'will of a connection cut by a crash is due');
    }
  }

  let sweeping: Promise<void> | undefined;
  const publishOrphanedWills = () =>
    (sweeping ??= (async () => {
      try {
        const sessionDeadlines = await store.releaseOrphanedSessions(orphanedBy, deps.now())
          .catch((err: unknown) => {
            logger.warn({ err }, 'sessions of connections cut by a crash not released yet');
            return new Map<string, number>();
          });
        if (sessionDeadlines.size > 0) logger.info({ sessions: sessionDeadlines.size }, 'sessions of connections cut by a crash now expire');
        for await (const will of store.streamWill({}) as AsyncIterable<SessionPacket>) {
          if (!orphanedBy(String(will.brokerId))) continue;
          await delayOrphanedWill(will, sessionDeadlines)
            .catch((err: unknown) => logger.warn({ deviceid: will.clientId, err }, 'orphaned will not published yet'));
        }
        // Publishes the orphaned wills due now and what else passed while this node was down, then keeps sweeping.
        await timers.fireDue().catch((err: unknown) => logger.warn({ err }, 'mqtt session timers: sweep failed'));
        timers.start();
      } catch (err) {
        // The store failed while wills were read (or closed under a shutdown): the next sweep tries again.
        logger.warn({ err }, 'wills of connections cut by a crash not read yet; trying again later');
      } finally {
        sweeping = undefined;
      }
    })());

  async function expireSessions(): Promise<void> {
    const ended = await store.expireSessions(deps.now() - deps.expirySeconds * 1000, deps.isConnected);
    if (ended.length > 0) logger.info({ sessions: ended.length }, 'expired persistent sessions ended');
  }

  const timer = setInterval(() => {
    void publishOrphanedWills();
    expireSessions().catch((err: unknown) => logger.warn({ err }, 'session expiry failed; trying again later'));
  }, UPKEEP_INTERVAL_MS).unref();

  return {
    publishOrphanedWills,
    expireSessions,
    settled: timers.settled,
    nodeLeft(node) {
      if (node === deps.nodeId || leaving.has(node)) return;
      const wait = setTimeout(() => {
        leaving.delete(node);
        gone.add(node);
        logger.info({ node }, 'node gone: its sessions and wills are taken over');
        void publishOrphanedWills();
      }, NODE_GONE_AFTER_MS).unref();
      leaving.set(node, wait);
    },
    nodeBack(node) {
      clearTimeout(leaving.get(node));
      leaving.delete(node);
      gone.delete(node);
    },
    close() {
      clearInterval(timer);
      for (const wait of leaving.values()) clearTimeout(wait);
      timers.close();
    },
  };
}

/** The node of an aedes id `{NODE_ID}:{boot}` (broker.ts). */
const nodeOfRun = (run: string) => run.slice(0, run.lastIndexOf(':'));
