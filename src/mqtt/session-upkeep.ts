import type { Aedes, Client } from 'aedes';
import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { DeviceStore } from '../devices/port';
import { deviceTopic, internalTopic, MSG, topicProblem } from '../messaging/topics';
import { MessageBus } from '../messaging/port';
import { SessionPacket, SessionStore } from '../sessions/port';
import { publishErrorNotice } from './error-notice';
import { MessagePipeline } from './message-pipeline';

/** How often expired sessions and orphaned wills are looked for. */
export const UPKEEP_INTERVAL_MS = 60_000;

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
  /** Publishes the wills a crash left behind (see orphanedBy); those it could not publish wait for the next round. */
  publishOrphanedWills(): Promise<void>;
  /** Ends persistent sessions unused for SESSION_EXPIRY_SECONDS. */
  expireSessions(): Promise<void>;
  close(): void;
}

/**
 * What keeps persistent sessions within their bounds (docs/mqtt.md "Persistent sessions"): their last use (connection
 * and disconnection) for expiry, the notice of dropped messages when a device returns, expiry itself, and the wills
 * of connections a crash cut.
 */
export function createSessionUpkeep(deps: SessionUpkeepDeps): SessionUpkeep {
  const { aedes, store, logger } = deps;
  const touch = (client: Client) => {
    if (client.clean) return;
    store.touchSession(client.id, deps.now()).catch((err: unknown) => logger.warn({ deviceid: client.id, err }, 'session not touched'));
  };
  aedes.on('clientReady', (client) => {
    touch(client);
    if (!client.clean) void tellDropped(client.id);
  });
  aedes.on('clientDisconnect', touch);

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
   * of its own, any owner but this process is gone. With a shared one only this node's earlier runs are known to be
   * gone (one process per NODE_ID); a will of another node is that node's to publish when it restarts, or is replaced
   * when its device connects again.
   */
  const orphanedBy = (owner: string) =>
    owner !== aedes.id && (!deps.sharedStore || owner.startsWith(`${deps.nodeId}:`));

  async function publishWill(will: SessionPacket): Promise<void> {
    const deviceid = will.clientId!;
    const device = await deps.devices.getDevice(deviceid);
    const parsed = device && will.topic ? deviceTopic(will.topic) : undefined;
    // The same rules as a will published at close (authorize-publish.ts): `@msg/...` of the device's group.
    if (device && parsed?.family === MSG && !topicProblem(parsed.rest, false, MSG)) {
      const payload = Buffer.isBuffer(will.payload) ? will.payload : Buffer.from(will.payload ?? '');
      await deps.pipeline.accept({ topic: internalTopic(device, MSG, parsed.rest), payload, qos: will.qos ?? 0, retain: will.retain ?? false })
        .catch((err: unknown) => {
          // Over the retained limit: published as the will's rules allow, nowhere; any other refusal waits for the next round.
          if (!(err instanceof AppError && err.code === 'RETAINED_LIMIT')) throw err;
        });
    }
    await store.delWill({ id: deviceid, brokerId: will.brokerId });
    logger.info({ deviceid, published: device !== undefined }, 'will of a connection cut by a crash published');
  }

  let sweeping: Promise<void> | undefined;
  const publishOrphanedWills = () =>
    (sweeping ??= (async () => {
      try {
        for await (const will of store.streamWill({}) as AsyncIterable<SessionPacket>) {
          if (!orphanedBy(String(will.brokerId))) continue;
          await publishWill(will).catch((err: unknown) => logger.warn({ deviceid: will.clientId, err }, 'orphaned will not published yet'));
        }
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

  return { publishOrphanedWills, expireSessions, close: () => clearInterval(timer) };
}
