import type { Aedes, Client } from 'aedes';
import type { Logger } from 'pino';
import { HeldSubscription, heldSubscriptionsOf, WirePacket } from '../aedes2-patches';
import { RelayedMessage, ShareDistribution, ShareRef } from '../../messaging/port';
import { groupTopic, MSG, Scope, topicProblem } from '../../messaging/topics';
import { REASON } from './reason-codes';
import { refusalOf, refuseSubscription } from './suback';

/**
 * MQTT 5 shared subscriptions within a group (MQTT 5.0 §4.8.2): `$share/{name}/@msg/{filter}` subscriptions of the
 * devices of one group with the same name form a share, and each message matching the filter goes to one of its
 * connected members, in turn. aedes 2.0.0-beta.1 has none (it answers 0x9E), so the broker keeps them itself:
 * - at parse time the filter becomes `$openpie/share/{name}/@msg/{filter}`, which aedes handles like any filter;
 * - `guardSubscribe` checks the `@msg/{filter}` part with the ordinary hook (namespace, quota) and stores the
 *   subscription in aedes as `$openpie/s/{name}/g/{project}/{group}/@msg/{filter}`, a topic nothing is ever published
 *   on, so that SUBACK, UNSUBSCRIBE and persistent sessions work as for any subscription;
 * - one listener per share on the group's internal filter hands each message to the next member with
 *   `client.publish`, aedes' own delivery (queued first for a persistent session, then authorizeForward), at the
 *   member's granted QoS [MQTT-4.8.2-3], with its Retain As Published and Subscription Identifier.
 * Retained messages are not sent for a new shared subscription (§4.8.2).
 *
 * With several nodes (the MQTT backbone) a share spans the cluster through a ShareDistribution
 * (adapters/backbone/mqtt-share-distribution.ts) instead of the listener: the node joins the share there while it has
 * members, and each message reaches exactly one node with members, which gives it to one of its own in turn. Such a
 * copy is stamped afresh (`{aedes id}.share` and a counter of its own), so that aedes' duplicate check, which runs per
 * broker id, never weighs it against the node's other deliveries. A member joins before its SUBACK, once the backbone
 * sends the share's messages here too (a Server may send before the SUBACK, §3.8.4). A copy that finds no member
 * here (the last one left meanwhile, or the node is stopping: `leaveAll`) is handed on to the other nodes' members.
 */
const PARSED = '$openpie/share/';
const STORED = '$openpie/s/';
const SHARE = '$share/';

type Sub = { topic: string; nl?: boolean } & object;

/** `$share/{name}/{filter}` read, or undefined for any other filter [MQTT-4.8.2-1] [MQTT-4.8.2-2]. */
function parseShare(filter: string): { name: string; filter: string } | { invalid: string } | undefined {
  if (!filter.startsWith(SHARE)) return undefined;
  const at = filter.indexOf('/', SHARE.length);
  const name = at < 0 ? '' : filter.slice(SHARE.length, at);
  if (name === '' || /[+#]/.test(name)) return { invalid: 'a shared subscription is $share/{name}/{filter}, the name without + or #' };
  return { name, filter: filter.slice(at + 1) };
}

/** The stored form of a share in `scope`'s group, or undefined when `filter` is not `@msg/...`. */
function storedShare(scope: Scope, name: string, filter: string): string | undefined {
  if (!filter.startsWith(`${MSG}/`) || topicProblem(filter.slice(MSG.length + 1), true)) return undefined;
  return `${STORED}${name}/g/${scope.projectid}/${scope.groupid}/${filter}`;
}

interface Member {
  client: Client;
  held: HeldSubscription;
}

interface Share {
  ref: ShareRef;
  members: Member[];
  next: number;
  /** The listener on the group's internal filter (one node alone). */
  deliver(packet: WirePacket, done: () => void): void;
  /** A message of the share that the distribution brought here (several nodes). */
  deliverCopy(message: RelayedMessage): Promise<void>;
  /** Settles once the share's messages come here (at once for one node alone). */
  joined: Promise<void>;
}

export interface SharedSubscriptionsDeps {
  scopes: WeakMap<Client, Scope>;
  logger: Logger;
  aedes: () => Aedes;
  /** The cluster's (the MQTT backbone); without it a share spans this node's members only. */
  distribution?: ShareDistribution;
}

export function createSharedSubscriptions({ scopes, logger, aedes, distribution }: SharedSubscriptionsDeps) {
  const shares = new Map<string, Share>();
  /** Set once the node stops: copies are handed on, no share is joined again. */
  let leaving = false;
  let copies = 0;
  /** The shares each client is a member of, to leave them when it goes. */
  const memberships = new WeakMap<Client, Set<string>>();

  /** The group's internal filter of a stored share: `$openpie/s/{name}/g/{p}/{g}/@msg/{f}` -> `$openpie/g/{p}/{g}/@msg/{f}`. */
  const groupFilterOf = (stored: string) => {
    const [, , , , projectid, groupid, ...rest] = stored.split('/');
    return groupTopic({ projectid, groupid }, rest.slice(1).join('/'));
  };

  /** The share's next member connected here, leaving the shares of members whose connection closed meanwhile. */
  function nextMember(stored: string, share: Share): Member | undefined {
    for (const gone of share.members.filter((m) => m.client.closed)) leave(gone.client, stored);
    const live = shares.get(stored) === share ? share.members : [];
    return live.length === 0 ? undefined : live[share.next++ % live.length];
  }

  function createShare(stored: string): Share {
    const created: Share = {
      ref: { name: stored.split('/')[2], filter: groupFilterOf(stored) },
      members: [],
      next: 0,
      deliver: (packet, done) => {
        const live = created.members.filter((m) => !m.client.closed);
        if (live.length === 0) return done();
        const member = live[created.next++ % live.length];
        // Client.publish queues it first for a persistent session, as aedes does for its own subscriptions.
        member.client.publish(copyFor(packet, member.held) as never, () => done());
      },
      deliverCopy: async (message) => {
        const member = leaving ? undefined : nextMember(stored, created);
        if (!member) return distribution?.handOn(created.ref, message);
        const packet = { ...packetOf(message), brokerId: `${aedes().id}.share`, brokerCounter: ++copies };
        await new Promise<void>((resolve) => member.client.publish(copyFor(packet, member.held) as never, () => resolve()));
      },
      joined: Promise.resolve(),
    };
    shares.set(stored, created);
    if (!distribution) aedes().subscribe(created.ref.filter, created.deliver as never, () => undefined);
    else if (!leaving) created.joined = distribution.join(created.ref, created.deliverCopy);
    return created;
  }

  /** Makes `client` a member; resolves once the share's messages come here. */
  function join(client: Client, stored: string, held: HeldSubscription): Promise<void> {
    const share = shares.get(stored) ?? createShare(stored);
    share.members = [...share.members.filter((m) => m.client !== client), { client, held }];
    const mine = memberships.get(client) ?? new Set<string>();
    memberships.set(client, mine.add(stored));
    return share.joined;
  }

  function leave(client: Client, stored: string): void {
    const share = shares.get(stored);
    memberships.get(client)?.delete(stored);
    if (!share) return;
    share.members = share.members.filter((m) => m.client !== client);
    if (share.members.length > 0) return;
    shares.delete(stored);
    if (distribution) distribution.leave(share.ref);
    else if (!aedes().closed) aedes().unsubscribe(share.ref.filter, share.deliver as never, () => undefined);
  }

  return {
    /** SUBSCRIBE/UNSUBSCRIBE of an MQTT 5 client as parsed (inbound.ts). False: the packet is a Protocol Error. */
    rewrite(client: Client, packet: WirePacket): boolean {
      if (packet.cmd === 'subscribe') {
        const subs = packet.subscriptions as Sub[];
        for (const [i, sub] of subs.entries()) {
          const share = parseShare(sub.topic);
          if (!share) continue;
          // [MQTT-3.8.3-4]: No Local on a shared subscription is a Protocol Error.
          if ('name' in share && sub.nl) return false;
          if ('invalid' in share) {
            refuseSubscription(sub, REASON.TOPIC_FILTER_INVALID, share.invalid);
            sub.topic = `$openpie/refused/share/${i}`;
          } else sub.topic = `${PARSED}${share.name}/${share.filter}`;
        }
      }
      if (packet.cmd === 'unsubscribe') {
        const scope = scopes.get(client);
        packet.unsubscriptions = (packet.unsubscriptions as string[]).map((filter) => {
          const share = scope && parseShare(filter);
          return share && 'name' in share ? (storedShare(scope, share.name, share.filter) ?? filter) : filter;
        });
      }
      return true;
    },

    /** Wraps authorizeSubscribe: a share is checked as its `@msg/...` filter, then kept in its stored form. */
    guardSubscribe(hook: Aedes['authorizeSubscribe']): Aedes['authorizeSubscribe'] {
      return (client, sub, done) => {
        const scope = scopes.get(client);
        const parsed = sub.topic.startsWith(PARSED) ? sub.topic.slice(PARSED.length) : undefined;
        const restored = sub.topic.startsWith(STORED) ? sub.topic : undefined;
        if ((parsed === undefined && restored === undefined) || !scope) return hook(client, sub, done);
        let stored = restored;
        if (parsed !== undefined) {
          const at = parsed.indexOf('/');
          stored = storedShare(scope, parsed.slice(0, at), parsed.slice(at + 1));
        }
        // A restored share of another group (the device was moved) is refused, as restored filters are.
        if (!stored || groupFilterOf(stored).indexOf(groupTopic(scope, '')) !== 0) {
          refuseSubscription(sub, REASON.NOT_AUTHORIZED, 'a shared subscription is $share/{name}/@msg/... in the device\'s group');
          return done(null, null);
        }
        const filter = stored.split('/').slice(6).join('/');
        const probe = { ...sub, topic: filter };
        hook(client, probe, (err, granted) => {
          const refusal = refusalOf(probe);
          if (refusal) refuseSubscription(sub, refusal.reasonCode, refusal.why);
          if (err || !granted) return done(err, null);
          sub.topic = stored!;
          // A restored share joins once the session is ready ('clientReady'): nothing may come before CONNACK.
          if (!distribution || restored) return done(null, sub);
          // Several nodes: a member from now on, granted once the other nodes send the share's messages here too.
          const { qos, rap, subscriptionIdentifier: si } = sub as typeof sub & { rap?: boolean; subscriptionIdentifier?: number };
          void join(client, stored!, { qos, rap, si }).then(() => done(null, sub));
        });
      };
    },

    attach(broker: Aedes): void {
      broker.on('subscribe', (subs, client) => {
        for (const s of subs) if (s.topic.startsWith(STORED) && s.qos < 0x80) join(client, s.topic, heldOf(client, s.topic));
      });
      broker.on('unsubscribe', (filters, client) => {
        for (const f of filters) if (f.startsWith(STORED)) leave(client, f);
      });
      // A resumed session's subscriptions are restored without a 'subscribe' event.
      broker.on('clientReady', (client) => {
        for (const [filter, held] of heldSubscriptionsOf(client)) if (filter.startsWith(STORED)) join(client, filter, held);
      });
      broker.on('clientDisconnect', (client) => {
        for (const stored of [...(memberships.get(client) ?? [])]) leave(client, stored);
      });
      logger.debug('mqtt shared subscriptions ready');
    },

    /** The node stops (several nodes): from now on its shares' messages go to the other nodes' members. */
    leaveAll(): void {
      leaving = true;
      if (distribution) for (const share of shares.values()) distribution.leave(share.ref);
    },
  };
}

const heldOf = (client: Client, filter: string): HeldSubscription =>
  heldSubscriptionsOf(client).find(([f]) => f === filter)?.[1] ?? { qos: 0 };

/** A message the distribution brought, as aedes delivers it; its Message Expiry counts from now [MQTT-3.3.2-5]. */
function packetOf({ topic, payload, qos, retain, properties }: RelayedMessage): WirePacket {
  const interval = properties?.messageExpiryInterval;
  const expiry = interval === undefined ? {} : { messageExpiry: Date.now() + interval * 1000 };
  return { cmd: 'publish', topic, payload, qos, retain, dup: false, ...(properties && { properties }), ...expiry };
}

/** The member's copy: at most its granted QoS [MQTT-4.8.2-3], the RETAIN flag as its Retain As Published says, its identifier. */
function copyFor(packet: WirePacket, held: HeldSubscription): WirePacket {
  const qos = Math.min(packet.qos as number, held.qos);
  const properties = held.si === undefined ? packet.properties : { ...(packet.properties as object), subscriptionIdentifier: held.si };
  return { ...packet, qos, retain: held.rap ? packet.retain : false, ...(properties !== undefined && { properties }) };
}

export type SharedSubscriptions = ReturnType<typeof createSharedSubscriptions>;
