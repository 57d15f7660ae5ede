import type { Aedes, Client } from 'aedes';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { SessionPacket } from '../sessions/port';

/**
 * The aedes 2 patch layer: every use of an aedes 2.0.0-beta.1 internal that the MQTT 5 support (mqtt/v5/) needs, in
 * one place, each named for what it gives. aedes is pinned exactly (package.json), since none of these is public
 * API; test/integration/mqtt5 covers each one. The aedes 1.x-era internals (client subscriptions, the clients table,
 * the queued-message stream, filter rewriting) stay in aedes-patches.ts.
 */

/** An MQTT packet as mqtt-packet reads and writes it. */
export type WirePacket = { cmd: string; [field: string]: unknown };
type WriteToStream = (packet: WirePacket, stream: Writable, opts?: object) => boolean;
interface PacketCodec {
  writeToStream: WriteToStream & { cacheNumbers?: boolean };
  generate(packet: WirePacket, opts?: object): Buffer;
}

/**
 * mqtt-packet as aedes itself loads it. aedes writes every packet through `mqtt.writeToStream`, looked up on the
 * module object at each write (lib/write.js), so wrapping that one function sees all that aedes sends.
 */
const codec = createRequire(require.resolve('aedes'))('mqtt-packet') as PacketCodec;

/** Where aedes writes a client's packets: its stream, and aedes' write options (the protocol version). */
export interface Outlet {
  stream: Writable;
  opts?: object;
}
/**
 * Decides what becomes of one packet aedes writes to `client`: `writePacket` it (changed or not), hold it and write it
 * later, or drop it. Returns the stream's backpressure flag (true when nothing was written now).
 */
export type OutgoingPacketHandler = (client: Client, packet: WirePacket, stream: Writable, opts: object | undefined) => boolean;

const handlers = new WeakMap<Aedes, OutgoingPacketHandler>();
let wrapped = false;
let original: PacketCodec['writeToStream'] = codec.writeToStream;

/** Writes `packet` to a client's stream as aedes would have; `opts` replaces aedes' write options when given. */
export const writePacket = (packet: WirePacket, stream: Writable, opts: object | undefined) => original(packet, stream, opts);

/**
 * Routes every packet `aedes` writes to one of its clients through `handler`. The wrapper is installed once per
 * process; it asks the stream for its aedes client (`conn.client`, set by aedes' Client) and leaves every other
 * writer of the same mqtt-packet (mqtt.js clients, other brokers) alone.
 */
export function interceptOutgoingPackets(aedes: Aedes, handler: OutgoingPacketHandler): void {
  handlers.set(aedes, handler);
  if (wrapped) return;
  wrapped = true;
  original = codec.writeToStream;
  const wrapper = function writeToStream(packet: WirePacket, stream: Writable, opts?: object): boolean {
    const client = (stream as Writable & { client?: Client & { broker?: Aedes } }).client;
    const handler = client?.broker && handlers.get(client.broker);
    return client && handler ? handler(client, packet, stream, opts) : original(packet, stream, opts);
  } as PacketCodec['writeToStream'];
  // mqtt.js switches number caching through this flag (its writeCache option): keep it on the real writer.
  Object.defineProperty(wrapper, 'cacheNumbers', {
    get: () => original.cacheNumbers,
    set: (value: boolean) => (original.cacheNumbers = value),
  });
  codec.writeToStream = wrapper;
}

/** The encoded size of `packet` in bytes, as it would be written to a client of protocol `version`. */
export const encodedSize = (packet: WirePacket, version: number) => codec.generate(packet, { protocolVersion: version }).length;

/**
 * Calls `listener` with each packet the client sends, as parsed, before aedes handles it (aedes 2 `client._parser`,
 * as aedes-patches.ts does for filters). Call it from preConnect: the CONNECT itself has passed already.
 */
export function beforeAedesHandles(client: Client, listener: (packet: WirePacket) => void): void {
  (client as unknown as { _parser: NodeJS.EventEmitter })._parser.prependListener('packet', listener);
}

/**
 * The first packet of a connection must be a CONNECT [MQTT-3.1.0-1]: makes `aedes.handle` close a connection whose
 * first byte names another packet type at that byte, as Mosquitto does, through the error path a malformed packet
 * takes (lib/client.js `_onError`: `connectionError`, then close). aedes would close it too, but only once that packet
 * were whole: a peer that has not authenticated could make it wait for, and buffer, a body up to the Maximum Packet
 * Size, and 4 KiB of random bytes announcing a longer PUBLISH sat until the 30 s connect timeout.
 */
export function closeUnlessConnectFirst(aedes: Aedes): void {
  const handle = aedes.handle;
  aedes.handle = function handleConnection(...args: Parameters<Aedes['handle']>) {
    const client = handle(...args);
    const parser = (client as unknown as { _parser: { parse(buf: Buffer): unknown } })._parser;
    const parse = parser.parse;
    parser.parse = function firstBytes(buf: Buffer) {
      if (buf.length > 0 && buf[0] >> 4 !== 1) {
        parser.parse = () => 0;
        client.emit('error', new Error('the first packet is not a CONNECT [MQTT-3.1.0-1]'));
        return 0;
      }
      if (buf.length > 0) parser.parse = parse;
      return parse.call(parser, buf);
    };
    return client;
  };
}

/**
 * Drops the credentials of a client's CONNECT once `authenticate` has them: mqtt-packet's parser keeps the CONNECT
 * packet for the connection's life (`settings`, for its protocol version), and with it the device's token and secret
 * (a Buffer of its own): a few hundred bytes a connection kept for no use (issue 26 §4), and secrets kept in memory.
 * aedes reads them only to call `authenticate` (lib/handlers/connect.js).
 */
export function forgetCredentials(client: Client): void {
  const connect = (client as unknown as { _parser: { settings?: { username?: string; password?: Buffer } } })._parser.settings;
  if (!connect) return;
  // Set, not deleted: the packet keeps its shape (a deleted property turns it into a larger dictionary object).
  connect.username = undefined;
  connect.password = undefined;
}

/**
 * Closes a connection from a parser listener (beforeAedesHandles): later, once aedes has taken in the packet being
 * parsed. Closing at once empties aedes' queue of packets that wait for CONNACK (lib/client.js `_parser._queue`) while
 * aedes is about to add this one to it, which throws outside any handler and ends the process.
 */
export function closeAfterParsing(close: () => void): void {
  setImmediate(close);
}

/**
 * Writes a packet aedes has no way to send, here a CONNACK with a reason code and reason string of our choosing, then
 * closes the connection once it is written. While `authenticate` is pending aedes writes nothing to the client, and
 * after `client.close()` it drops the hook's answer (lib/handlers/connect.js checks `client.closed`).
 */
export function writeThenClose(client: Client, packet: WirePacket, opts: { protocolVersion: number }, closed: () => void): void {
  const bytes = codec.generate(packet, opts);
  client.conn.write(bytes, () => client.close(closed));
}

/**
 * MQTT 5 Server Keep Alive [MQTT-3.2.2-21]: aedes sends it in CONNACK, and keeps the connection to it, when
 * `client._serverKeepAlive` is set before CONNECT is processed (lib/handlers/connect.js init/setKeepAlive). aedes
 * sets it only from its global `keepaliveLimit`, which would also refuse MQTT 3.1.1 clients; we set it per client.
 */
export function setServerKeepAlive(client: Client, seconds: number): void {
  (client as unknown as { _serverKeepAlive?: number })._serverKeepAlive = seconds;
}

/**
 * Gives a client that sent an empty ClientID the identifier `id`, as if it had sent it: aedes names such a client
 * `aedes_<uuid>` and keeps that as its Assigned Client Identifier (lib/handlers/connect.js init), then runs
 * `authenticate` before it reads the session or registers the client under its id (connectActions). Called from
 * authenticate, so the session, the take-over [MQTT-3.1.4-2] and the MQTT 5 CONNACK's Assigned Client Identifier
 * [MQTT-3.2.2-16] all use `id`.
 */
export function assignClientId(client: Client, id: string): void {
  client.id = id;
  (client as unknown as { _assignedClientId?: string })._assignedClientId = id;
}

/** A client's subscription as aedes keeps it (lib/handlers/subscribe.js Subscription). */
export interface HeldSubscription {
  qos: number;
  /** Retain As Published. */
  rap?: boolean;
  /** Subscription Identifier. */
  si?: number;
}

/** The client's subscriptions by (internal) filter. */
export const heldSubscriptionsOf = (client: Client) =>
  Object.entries((client as unknown as { subscriptions: Record<string, HeldSubscription> }).subscriptions);

/** The Subscription Identifier of each of the client's subscriptions that has one, by (internal) filter. */
export function subscriptionIdentifiersOf(client: Client): [string, number][] {
  const subscriptions = (client as unknown as { subscriptions: Record<string, { si?: number }> }).subscriptions;
  return Object.entries(subscriptions).flatMap(([filter, sub]) => (sub.si === undefined ? [] : [[filter, sub.si] as [string, number]]));
}

/** The persistence calls the patches make; `cleanIncoming` exists from aedes-persistence 11 on. */
export interface SessionPersistence {
  cleanIncoming?(client: Client): Promise<void>;
  incomingDelPacket(client: Client, packet: { messageId: number }): Promise<void>;
  outgoingClearMessageId(client: Client, packet: { messageId: number }): Promise<unknown>;
}

export const persistenceOf = (aedes: Aedes) => (aedes as unknown as { persistence: SessionPersistence }).persistence;

/** What becomes of a connection's end instead of aedes' timers. */
export interface TimerReplacements {
  /** A persistent session's connection ended (not a takeover on this node): record its last use and deadline. */
  sessionEnded(client: Client): void;
  /** A will is owed after `seconds` (already min(Will Delay, Session Expiry)): record when it is due. */
  willDelayed(client: Client, seconds: number): void;
}

/** The aedes 2.0.0-beta.1 internals replaced here (aedes.js). */
interface AedesTimerInternals {
  scheduleSessionExpiry(client: Client): void;
  scheduleWill(client: Client, will: unknown, delaySeconds: number): void;
  /** ClientIDs whose new connection is taking over an older one on this node (registerClient). */
  _takingOver: Set<string>;
}

/**
 * aedes 2.0.0-beta.1 arms a timer in the node's memory for each session that outlives its connection and each delayed
 * will (aedes.js `scheduleSessionExpiry`, `scheduleWill`, called by the client's close in lib/client.js): a restart
 * loses them, a shutdown drops them (aedes is closed by then), and one fires on a node that does not know the device
 * connected again elsewhere. Both methods are replaced on this instance. What aedes does itself stays: a session with
 * no interval (clean) is wiped with its connection, and the end of a connection being taken over on this node records
 * nothing (the new connection owns the session and has replaced the will).
 */
export function replaceAedesTimers(aedes: Aedes, replacements: TimerReplacements): void {
  const internals = aedes as unknown as AedesTimerInternals;
  const scheduleSessionExpiry = internals.scheduleSessionExpiry;
  internals.scheduleSessionExpiry = function sessionEnded(client: Client) {
    if (internals._takingOver.has(client.id)) return;
    if (client.clean) return scheduleSessionExpiry.call(internals, client);
    replacements.sessionEnded(client);
  };
  internals.scheduleWill = function willDelayed(client: Client, _will: unknown, delaySeconds: number) {
    if (internals._takingOver.has(client.id)) return;
    replacements.willDelayed(client, delaySeconds);
  };
}

/** How aedes delivers one message to one client (lib/client.js `deliverQoS`, `deliver0`). */
export type Delivery = (packet: SessionPacket, done: () => void) => void;

/**
 * Puts `wrap` around a client's two delivery functions (lib/client.js, set per Client in its constructor). Call it
 * from preConnect: aedes hands each subscription the function as it is when the subscription is made (restored ones
 * included), so the wrapper stays for the connection's life.
 */
export function wrapDeliveries(client: Client, wrap: (deliver: Delivery) => Delivery): void {
  const delivering = client as unknown as { deliverQoS: Delivery; deliver0: Delivery };
  delivering.deliverQoS = wrap(delivering.deliverQoS.bind(client));
  delivering.deliver0 = wrap(delivering.deliver0.bind(client));
}

/**
 * Makes a client's `clean` (aedes: the session ends with the connection; lib/handlers/connect.js sets it from the
 * Session Expiry Interval) read false while `persistentNow()` says so; what aedes writes to it is kept.
 */
export function readCleanAsPersistentWhile(client: Client, persistentNow: () => boolean): void {
  let clean = client.clean;
  Object.defineProperty(client, 'clean', {
    configurable: true,
    enumerable: true,
    get: () => clean && !persistentNow(),
    set: (value: boolean) => (clean = value),
  });
}

/**
 * True while a connection of this broker holds `clientId`'s session: registered and not closing, or taking it over
 * (aedes.js `clients`, `_takingOver`).
 */
export function holdsSession(aedes: Aedes, clientId: string): boolean {
  const internals = aedes as unknown as { clients: Record<string, Client | undefined>; _takingOver: Set<string> };
  const client = internals.clients[clientId];
  return internals._takingOver.has(clientId) || (client !== undefined && !client.closed);
}
