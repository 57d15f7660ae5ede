import type { Aedes, Client, PublishPacket } from 'aedes';
import { malformedFilter } from '../messaging/topics';
import { SERVED_TOPIC } from './served';
import { REASON } from './v5/reason-codes';
import { refuseSubscription } from './v5/suback';

/**
 * Everything the broker does to aedes beyond its documented hooks that predates MQTT 5, in one place. Each patch
 * relies on an internal of aedes (pinned exactly in package.json) and is covered by the MQTT suites
 * (test/integration/mqtt: acl, sessions, persistence). The MQTT 5 patch layer over aedes 2 is aedes2-patches.ts.
 */

/**
 * A filter aedes accepts but authorizeSubscribe always refuses; stands in for filters aedes would choke on. Numbered
 * by position, so that two refused filters of one SUBSCRIBE stay two (aedes merges equal filters of a packet).
 */
const refusedFilter = (index: number) => `$openpie/refused/${index}`;

/** A subscription no device can hold (authorizeSubscribe refuses every `$` filter): marks a session with no other one. */
export const SESSION_MARKER_FILTER = '$openpie/session';

/**
 * A filter named like a member of Object.prototype (`__proto__`, `constructor`): aedes 2.0.0-beta.1 keys plain
 * objects by wire filters (lib/handlers/subscribe.js `_dedupe`, `client.subscriptions` on UNSUBSCRIBE), where such a
 * name reads or even replaces the prototype (GHSA-52qw-whmv-87c5, fixed in aedes 1.2.0, not in the beta). No device
 * filter has that form, so it is refused before aedes sees it.
 */
const prototypeNamed = (filter: string) => filter in Object.prototype;

/** A client's subscriptions by (internal) filter, with their granted QoS (aedes' `client.subscriptions`). */
export const subscriptionsOf = (client: Client) => (client as unknown as { subscriptions: Record<string, { qos: number }> }).subscriptions;

/** The connected clients by ClientID (aedes' `clients` table). */
export const connectedClients = (aedes: Aedes) => (aedes as unknown as { clients: Record<string, Client | undefined> }).clients;

/**
 * Stops reading a client's socket (aedes `client.pause()`, which its connect handler uses while authenticating):
 * packets already read are still handled, no new one is. For a shutdown that lets in-flight publishes finish.
 */
export function stopReading(client: Client): void {
  (client as unknown as { pause(): void }).pause();
}

interface FilterPacket {
  cmd: string;
  unsubscriptions?: string[];
  subscriptions?: { topic: string }[];
}

/**
 * What aedes offers no hook for on SUBSCRIBE and UNSUBSCRIBE, done on each packet as it is parsed, before aedes
 * handles it (relies on the client's parser, `client._parser`, the same in aedes 1.x and 2.0.0-beta.1); call it from
 * preConnect:
 * - UNSUBSCRIBE filters are rewritten like subscriptions, since aedes keeps subscriptions under internal topics. One
 *   that arrives with the CONNECT, before the device is known, is rewritten once it is (at `connected`, before aedes
 *   handles the packets it queued meanwhile), so it removes the subscription it names, stored one included
 *   [MQTT-3.10.4-1];
 * - a SUBSCRIBE filter that aedes itself would reject by closing the connection (`a/#/b`, `a+`), or that names a
 *   prototype member, is swapped for one that authorizeSubscribe refuses, so the client gets SUBACK 0x80 (MQTT 5:
 *   0x8F for a malformed filter, 0x87 otherwise) for it like for any refused filter. An UNSUBSCRIBE filter that names
 *   a prototype member is swapped at once, device known or not: aedes would find the prototype's function in
 *   `client.subscriptions` and fail an assertion of its emitter, ending the process;
 * - a SUBSCRIBE or UNSUBSCRIBE is finished before aedes starts on the next packet (handleSubscriptionChangesInOrder).
 */
export function rewriteFilters(client: Client, internalFilterOf: (client: Client) => ((filter: string) => string | undefined) | undefined): void {
  const parser = (client as unknown as { _parser: NodeJS.EventEmitter })._parser;
  const beforeScope: FilterPacket[] = [];
  const rewriteUnsubscribe = (packet: FilterPacket, internal: (filter: string) => string | undefined) => {
    packet.unsubscriptions = packet.unsubscriptions?.map((filter, i) => internal(filter) ?? (prototypeNamed(filter) ? refusedFilter(i) : filter));
  };
  parser.prependListener('packet', (packet: FilterPacket) => {
    if (packet.cmd === 'subscribe') {
      (packet.subscriptions ?? []).forEach((sub, i) => {
        const malformed = malformedFilter(sub.topic);
        if (malformed) refuseSubscription(sub, REASON.TOPIC_FILTER_INVALID, 'a wildcard must fill a whole level, and # be the last');
        if (malformed || prototypeNamed(sub.topic)) sub.topic = refusedFilter(i);
      });
    }
    if (packet.cmd !== 'unsubscribe' || !packet.unsubscriptions) return;
    const internal = internalFilterOf(client);
    if (internal) return rewriteUnsubscribe(packet, internal);
    packet.unsubscriptions = packet.unsubscriptions.map((filter, i) => (prototypeNamed(filter) ? refusedFilter(i) : filter));
    beforeScope.push(packet);
  });
  // Before aedes handles what it queued (its own 'connected' listener, added when the Client was made).
  client.prependOnceListener('connected', () => {
    const internal = internalFilterOf(client);
    if (internal) for (const packet of beforeScope.splice(0)) rewriteUnsubscribe(packet, internal);
  });
  handleSubscriptionChangesInOrder(client);
}

/** What aedes 2.0.0-beta.1 keeps per client to read its socket in batches (lib/client.js). */
interface BatchInternals {
  _parser: NodeJS.EventEmitter;
  /** Packets of the batch being read that aedes has not finished handling; the next read waits for 0. */
  _parsingBatch: number;
  /** The `done` aedes hands each packet's handler: one fewer in the batch. */
  _nextBatch(err?: Error): void;
}

const changesSubscriptions = (packet: FilterPacket) => packet.cmd === 'subscribe' || packet.cmd === 'unsubscribe';

/**
 * aedes handles all the packets of one read at once (lib/client.js `enqueue`, and `dequeue` for those queued before
 * CONNACK), so an UNSUBSCRIBE and a SUBSCRIBE of one filter sent together race: the SUBSCRIBE finds the subscription
 * still held (aedes deletes it a turn later, in mqemitter's callback) and keeps it, then the UNSUBSCRIBE removes it,
 * after a SUBACK that said it was there (moscajs/aedes#469). A SUBSCRIBE must replace what the filter held
 * [MQTT-3.8.4-3], an UNSUBSCRIBE delete what is held when it arrives [MQTT-3.10.4-1]: here a SUBSCRIBE or UNSUBSCRIBE
 * is finished before aedes starts on the client's next packet, which waits in arrival order (counted in aedes' batch,
 * so the socket is not read meanwhile). Other packets go on as aedes handles them. Before `connected` (aedes has yet
 * to handle what it queued), a SUBSCRIBE or UNSUBSCRIBE and all that follows it wait for aedes' queue.
 */
function handleSubscriptionChangesInOrder(client: Client): void {
  const internals = client as unknown as BatchInternals;
  const parser = internals._parser;
  const enqueue = parser.listeners('packet').find((listener) => listener.name === 'enqueue') as ((packet: FilterPacket) => void) | undefined;
  if (!enqueue) throw new Error('aedes: no enqueue listener on the client parser (lib/client.js changed)');
  const nextBatch = internals._nextBatch;
  const waiting: FilterPacket[] = [];
  let connected = false;
  let changing = false;
  const handle = (packet: FilterPacket) => {
    if (!changesSubscriptions(packet)) return enqueue.call(parser, packet);
    changing = true;
    let finished = false;
    // aedes reads `client._nextBatch` once, as it hands the packet to its handler.
    internals._nextBatch = (err) => {
      if (finished) return;
      finished = true;
      changing = false;
      if (err) return nextBatch(err);
      handleWaiting();
      nextBatch();
    };
    try {
      enqueue.call(parser, packet);
    } finally {
      internals._nextBatch = nextBatch;
    }
  };
  const handleWaiting = () => {
    while (!changing && waiting.length > 0) {
      internals._parsingBatch--;
      handle(waiting.shift()!);
    }
  };
  parser.removeListener('packet', enqueue);
  parser.on('packet', (packet: FilterPacket) => {
    if (!changing && waiting.length === 0 && (connected || !changesSubscriptions(packet))) return handle(packet);
    internals._parsingBatch++;
    waiting.push(packet);
  });
  client.once('connected', () => {
    connected = true;
    handleWaiting();
  });
}

/**
 * Whether any subscription on this node matches `topic`: a connection's, or the service's own (`aedes.subscribe`,
 * shared subscriptions' listeners). aedes' emitter (mqemitter) asks its matcher the same for every message it emits.
 */
export function hasSubscribers(aedes: Aedes, topic: string): boolean {
  return (aedes as unknown as { mq: { _matcher: { match(topic: string): unknown[] } } }).mq._matcher.match(topic).length > 0;
}

/** The identity aedes keeps a published packet under (aedes-packet copies a given broker id and counter). */
interface StampedPacket {
  brokerId?: string;
  brokerCounter?: number;
}

/**
 * Calls `listener` with each packet aedes hands to its emitter (`aedes.mq.emit`), the step of `aedes.publish` after
 * which every connection of this node has the message in hand, in the order of the calls. aedes' publish callback
 * comes only later, after a setImmediate per delivery (lib/write.js), so a caller that needs its publishes emitted
 * in order waits for this instead (message-pipeline.ts).
 */
export function onEmit(aedes: Aedes, listener: (packet: StampedPacket) => void): void {
  const mq = (aedes as unknown as { mq: { emit(packet: StampedPacket, done?: () => void): unknown } }).mq;
  const emit = mq.emit.bind(mq);
  mq.emit = (packet, done) => {
    listener(packet);
    return emit(packet, done);
  };
}

type Callback = (error?: Error) => void;

/**
 * A publish the broker's hooks have served (served.ts) ends once it is acknowledged. aedes would still publish it, to a
 * topic no subscription matches, through its whole publish series (a copy of the packet, the offline-queue step, the
 * emitter): about a twentieth of a QoS 1 message's CPU (issue 26 §1). Here it goes no further; the 'publish' event that
 * series ends with is still emitted, with the publishing client, so what observes it (broker-metrics.ts: messages in)
 * counts as before. aedes calls `publish(packet, client, done)` for a client's packets; the typings know only
 * `publish(packet, done)`, the form the service itself uses.
 */
export function endServedPublishes(aedes: Aedes): void {
  const publish = aedes.publish as (packet: PublishPacket, client: Client | null | Callback, done?: Callback) => void;
  (aedes as unknown as { publish: typeof publish }).publish = function (packet, client, done) {
    if (packet.topic !== SERVED_TOPIC) return publish.call(aedes, packet, client, done);
    const [from, callback] = typeof client === 'function' ? [null, client] : [client, done];
    aedes.emit('publish', packet, from);
    callback?.();
  };
}
