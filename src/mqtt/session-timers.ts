import type { Aedes } from 'aedes';
import type { Logger } from 'pino';
import { SessionPacket, SessionStore } from '../sessions/port';
import { replaceAedesTimers } from './aedes2-patches';

/** How often every node looks for deadlines that passed: those another node or an earlier run recorded. */
export const TIMER_SWEEP_MS = 1000;
/** A deadline this node records within this also wakes it then; a later one waits for a sweep (at most TIMER_SWEEP_MS late). */
const WAKE_UP_WITHIN_MS = 60_000;
/** A due will that could not be published (the backbone or a store away) is tried again after this. */
const WILL_RETRY_MS = 5000;
/** aedes' "never expires" Session Expiry Interval (0xFFFFFFFF seconds); the broker's limit keeps below it anyway. */
const NEVER_EXPIRES = 0xffffffff;

export interface SessionTimersDeps {
  aedes: Aedes;
  store: SessionStore;
  /** Publishes a will through the message pipeline (session-upkeep.ts); rejects when it could not be kept. */
  publishWill(will: SessionPacket): Promise<void>;
  /** True while the device is connected to any node. */
  isConnected(deviceid: string): boolean;
  logger: Logger;
  now(): number;
}

export interface SessionTimers {
  /** Publishes the wills that are due and ends the sessions that are; concurrent calls share one sweep. */
  fireDue(): Promise<void>;
  /**
   * Sweeps from now on, every TIMER_SWEEP_MS and at the near deadlines this node records; idempotent. Called once the
   * node can publish (session-upkeep.ts: before it accepts connections, or once the backbone is up), since a will taken
   * earlier would go to no one.
   */
  start(): void;
  /** Resolves once what connections that ended have to record (last use, deadline, will delay) is in the store. */
  settled(): Promise<void>;
  /** Stops sweeping; connections that end from now on (a shutdown closing them) are still recorded. */
  close(): void;
}

/**
 * MQTT 5 Session Expiry Interval and Will Delay Interval, kept in the session store instead of in timers of the node
 * (docs/mqtt.md "MQTT 5 timers"), so that a restart keeps them and, with a shared store, any live node fires them
 * once the node that set them is gone:
 * - when a persistent session's connection ends, its last use and (MQTT 5) its deadline, disconnection time + the
 *   interval then in force (a DISCONNECT may have changed it, §3.14.2.2.2); a new connection clears it;
 * - when a connection ends without DISCONNECT (or with 0x04) and its will has a delay, the will's due time, at most
 *   the session's end (aedes computes min(delay, expiry) [MQTT-3.1.3-9]); a new connection replaces or deletes the
 *   will at CONNECT, which cancels it;
 * - every node sweeps what is due each TIMER_SWEEP_MS (and the node that recorded a near deadline wakes at it): the
 *   store hands each due will and each due session to one caller only, so one node publishes a will once, also when
 *   several sweep at once. A session that ends publishes the will it still had [MQTT-3.1.3-9].
 */
export function createSessionTimers(deps: SessionTimersDeps): SessionTimers {
  const { aedes, store, logger } = deps;
  const writes = new Set<Promise<void>>();
  const record = (what: string, clientId: string, write: Promise<unknown>) => {
    const tracked: Promise<void> = write
      .then(() => undefined, (err: unknown) => logger.warn({ deviceid: clientId, err }, `mqtt session: ${what} not recorded`))
      .finally(() => writes.delete(tracked));
    writes.add(tracked);
  };

  aedes.on('client', (client) => {
    if (client.clean) return;
    const expiryMs = client.version === 5 && client.sessionExpiryInterval < NEVER_EXPIRES ? client.sessionExpiryInterval * 1000 : undefined;
    record('connection', client.id, store.sessionConnected(client.id, deps.now(), aedes.id, expiryMs));
  });

  replaceAedesTimers(aedes, {
    sessionEnded(client) {
      const at = deps.now();
      const interval = client.sessionExpiryInterval;
      const deadline = client.version === 5 && interval < NEVER_EXPIRES ? at + interval * 1000 : undefined;
      record('disconnection', client.id, store.sessionDisconnected(client.id, at, aedes.id, deadline));
      if (deadline !== undefined) wakeAt(deadline);
    },
    willDelayed(client, seconds) {
      const at = deps.now() + seconds * 1000;
      // Not owned any more: the device connected again on another node, which replaced the will [MQTT-3.1.3-9].
      record('will delay', client.id, store.delayWill({ id: client.id, brokerId: aedes.id }, at));
      wakeAt(at);
    },
  });

  async function publish(will: SessionPacket): Promise<void> {
    try {
      await deps.publishWill(will);
    } catch (err) {
      logger.warn({ deviceid: will.clientId, err }, 'delayed will not published yet; trying again later');
      await store.returnWill(will, deps.now() + WILL_RETRY_MS)
        .catch((lost: unknown) => logger.error({ deviceid: will.clientId, err: lost }, 'delayed will lost: not published and not stored again'));
    }
  }

  async function sweep(): Promise<void> {
    const now = deps.now();
    for (const will of await store.takeDueWills(now)) await publish(will);
    for (const { clientId, will } of await store.endDueSessions(now, deps.isConnected)) {
      logger.info({ deviceid: clientId, will: will !== undefined }, 'mqtt session expired');
      if (will) await publish(will);
    }
  }

  let sweeping: Promise<void> | undefined;
  let again = false;
  function fireDue(): Promise<void> {
    if (sweeping) {
      again = true;
      return sweeping;
    }
    sweeping = (async () => {
      try {
        do {
          again = false;
          await sweep();
        } while (again);
      } finally {
        sweeping = undefined;
      }
    })();
    return sweeping;
  }

  // One line per outage, not one per second.
  let failing = false;
  const sweepNow = () =>
    fireDue().then(
      () => {
        if (failing) logger.info('mqtt session timers: sweeping again');
        failing = false;
      },
      (err: unknown) => {
        if (!failing) logger.warn({ err }, 'mqtt session timers: sweep failed; trying again every second');
        failing = true;
      },
    );

  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const wakeUps = new Set<NodeJS.Timeout>();
  function wakeAt(at: number): void {
    const wait = at - deps.now();
    if (closed || !timer || wait > WAKE_UP_WITHIN_MS) return;
    // A few milliseconds late: the sweep asks for what is due at its own clock reading.
    const wakeUp = setTimeout(() => {
      wakeUps.delete(wakeUp);
      void sweepNow();
    }, Math.max(0, wait) + 5).unref();
    wakeUps.add(wakeUp);
  }

  return {
    fireDue,
    start() {
      if (closed || timer) return;
      timer = setInterval(sweepNow, TIMER_SWEEP_MS).unref();
    },
    async settled() {
      while (writes.size > 0) await Promise.all([...writes]);
    },
    close() {
      closed = true;
      clearInterval(timer);
      for (const wakeUp of wakeUps) clearTimeout(wakeUp);
      wakeUps.clear();
    },
  };
}
