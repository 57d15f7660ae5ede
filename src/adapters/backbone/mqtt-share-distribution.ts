import mqtt, { IPublishPacket, MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import { RelayedMessage, ShareDistribution, ShareRef } from '../../messaging/port';
import { backboneClientOptions } from './backbone-client';
import { relayedMessageOf, toBackbone } from './backbone-properties';
import { flushTopic, messageTopic, parseBackboneTopic, shareFilter } from './backbone-topics';

export interface MqttShareDistributionOptions {
  url: string;
  username?: string;
  password?: string;
  nodeId: string;
  logger: Logger;
  timings: { ackTimeoutMs: number; reconnectPeriodMs: number; connectTimeoutMs: number; keepaliveSeconds: number };
}

export interface MqttShareDistribution extends ShareDistribution {
  /** Opens the connection (once; it reconnects by itself). */
  connect(): void;
  connected(): boolean;
  /** Leaves every share, hands on what the backbone had sent before, then ends the connection; idempotent. */
  close(): Promise<void>;
}

/** How long a share left stays known, so that the messages the backbone had already sent for it can be handed on. */
const LEFT_SHARE_KEPT_MS = 60_000;

/** A backbone shared subscription of this node; `deliver` is unset once the node left the share. */
interface Subscription {
  share: ShareRef;
  /** `$share/{name}/openpie/v1/msg/g/{project}/{group}/@msg/{filter}` */
  filter: string;
  /** Its Subscription Identifier: the backbone names it in each message it sends for it [MQTT-3.3.4-3]. */
  id: number;
  deliver?: (message: RelayedMessage) => Promise<void>;
}

/**
 * MQTT 5 shared subscriptions across the nodes (issue 17 item 4), done by the backbone broker's own shared subscriptions
 * (MQTT 5.0 §4.8.2, Mosquitto 2): while a node has members of a device share, it subscribes to the backbone's share of
 * the same name on the share's backbone topics (backbone-topics.ts), and the backbone gives each message that a node
 * relays to exactly one of the nodes so subscribed, which gives it to one of its members.
 *
 * - A connection of its own, `openpie-{nodeId}-shares`, whose session ends with it (Clean Start, no Session Expiry):
 *   once a node is gone the backbone sends the share's messages to the other nodes only. With the node's persistent
 *   session, it would go on taking its turn, unread, until that session expired. What the backbone had sent a node
 *   that died (no close()) and had not had acknowledged is lost: Mosquitto 2 does not hand a shared subscription's
 *   messages on to another subscriber when a session ends (§4.8.2 says it SHOULD).
 * - QoS 1, Retain As Published, Retain Handling 2 (no retained messages for a new share, §4.8.2); a message is
 *   acknowledged to the backbone once a member has it.
 * - A message that arrives when no member here can take it any more (the last one left while it was on its way, or
 *   the node is stopping) goes back on the backbone as a hand-on: on its own topic, at its QoS, not retained, with the
 *   share's filter in the user property `share`, so that only the nodes subscribed to that share take it, for that
 *   share only. The node leaves the share first, on this same connection, so the backbone never gives it back here.
 * - close(): after leaving every share, the node waits for a message to itself on `flush/{node}`, which the backbone
 *   sends after all it had sent before, and hands those on; then it ends the connection.
 */
export function createMqttShareDistribution(options: MqttShareDistributionOptions): MqttShareDistribution {
  const { url, username, password, nodeId, timings } = options;
  const log = options.logger.child({ shares: true });
  const client: MqttClient = mqtt.connect(url, {
    ...backboneClientOptions(username, password, timings),
    clientId: `openpie-${nodeId}-shares`,
    clean: true,
  });
  const byFilter = new Map<string, Subscription>();
  const byId = new Map<number, Subscription>();
  let lastId = 0;
  let started = false;
  let closing: Promise<void> | undefined;
  let flushed: (() => void) | undefined;
  let lastProblem: string | undefined;

  const forget = (sub: Subscription) => {
    if (sub.deliver || byFilter.get(sub.filter) !== sub) return;
    byFilter.delete(sub.filter);
    byId.delete(sub.id);
  };

  /** Resolves once the backbone has answered (or would not in time); while disconnected at once: `connect` subscribes. */
  function subscribe(sub: Subscription): Promise<void> {
    if (!client.connected) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timings.ackTimeoutMs);
      client.subscribe(sub.filter, { qos: 1, rap: true, rh: 2, properties: { subscriptionIdentifier: sub.id } }, (err, granted) => {
        clearTimeout(timer);
        const refused = err ?? ((granted?.[0]?.qos ?? 0x80) >= 0x80 ? new Error(`refused: ${granted?.[0]?.qos}`) : undefined);
        if (refused) log.warn({ err: refused.message, filter: sub.filter }, 'the backbone did not take a shared subscription');
        resolve();
      });
    });
  }

  function leave(share: ShareRef): void {
    const sub = byFilter.get(shareFilter(share.name, share.filter) ?? '');
    if (!sub?.deliver) return;
    sub.deliver = undefined;
    if (client.connected && !client.disconnecting) client.unsubscribe(sub.filter, () => undefined);
    setTimeout(() => forget(sub), LEFT_SHARE_KEPT_MS).unref();
  }

  function handOn(share: ShareRef, message: RelayedMessage): void {
    const topic = messageTopic(message.topic);
    const filter = shareFilter(share.name, share.filter);
    if (topic === undefined || filter === undefined || !started || client.disconnecting) {
      return log.debug({ topic: message.topic }, 'shared subscription message not handed on: the node is leaving the backbone');
    }
    const properties = toBackbone(message.properties, { origin: nodeId, qos: String(message.qos), share: filter });
    client.publish(topic, message.payload, { qos: message.qos > 0 ? 1 : 0, retain: false, properties }, (err) => {
      if (err) log.debug({ err: err.message, topic: message.topic }, 'shared subscription message not handed on');
    });
  }

  /** One message from the backbone: for the share its Subscription Identifier names, unless a hand-on names another. */
  async function receive(packet: IPublishPacket): Promise<void> {
    const parsed = parseBackboneTopic(packet.topic);
    if (parsed?.kind === 'flush') return flushed?.();
    if (parsed?.kind !== 'message') return;
    const target = packet.properties?.userProperties?.share;
    for (const id of ([] as number[]).concat(packet.properties?.subscriptionIdentifier ?? [])) {
      const sub = byId.get(id);
      if (!sub || (target !== undefined && target !== sub.filter)) continue;
      const message = relayedMessageOf(packet, parsed.internalTopic);
      if (sub.deliver) await sub.deliver(message);
      else handOn(sub.share, message);
    }
  }

  /** Waits until everything the backbone had sent this connection has arrived: a message to itself comes after it. */
  async function flush(): Promise<void> {
    const topic = flushTopic(nodeId);
    const arrived = new Promise<void>((resolve) => (flushed = resolve));
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, timings.ackTimeoutMs).unref());
    const sent = client.subscribeAsync(topic, { qos: 1 }).then(() => client.publishAsync(topic, Buffer.alloc(0), { qos: 1 }));
    await Promise.race([sent.then(() => arrived), deadline]).catch(() => undefined);
  }

  client.handleMessage = (packet, done) => {
    receive(packet).then(
      () => done(),
      (err: unknown) => {
        log.warn({ err, topic: packet.topic }, 'shared subscription message not delivered');
        done();
      },
    );
  };
  client.on('connect', () => {
    lastProblem = undefined;
    // A new session: the shares this node has are subscribed afresh; those it left are over.
    for (const sub of [...byFilter.values()]) {
      if (sub.deliver) void subscribe(sub);
      else forget(sub);
    }
  });
  client.on('error', (err) => {
    if (err.message === lastProblem) return;
    lastProblem = err.message;
    log.warn({ err: err.message }, 'mqtt backbone (shared subscriptions) unreachable; retrying');
  });

  return {
    connect() {
      if (started) return;
      started = true;
      client.connect();
    },

    connected: () => client.connected,

    join(share, deliver) {
      const filter = shareFilter(share.name, share.filter);
      if (filter === undefined || closing) return Promise.resolve();
      let sub = byFilter.get(filter);
      if (!sub) {
        sub = { share, filter, id: ++lastId };
        byFilter.set(filter, sub);
        byId.set(sub.id, sub);
      }
      sub.deliver = deliver;
      return subscribe(sub);
    },

    leave,

    handOn,

    close: () =>
      (closing ??= (async () => {
        for (const sub of [...byFilter.values()]) leave(sub.share);
        if (client.connected) {
          await flush();
          await Promise.race([client.endAsync(false), new Promise((resolve) => setTimeout(resolve, timings.ackTimeoutMs).unref())]);
        }
        await client.endAsync(true);
      })()),
  };
}
