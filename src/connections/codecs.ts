import * as t from 'io-ts';
import { closed } from '../core/codecs';

/**
 * What the connection inspector shows (issue 24 §2; docs/operations.md "Connection inspector"). Codecs, because a
 * node's part crosses the backbone to the node that asked (adapters/backbone/mqtt-connection-gathering.ts) and is
 * decoded there like any input. Nothing here ever holds a credential: no token, secret or `@tap` device key.
 */
export const Transport = t.keyof({ tcp: null, tls: null, ws: null, wss: null });
export type Transport = t.TypeOf<typeof Transport>;

/** A subscription as the device wrote it (its external filter), with the QoS it was granted. */
export const HeldSubscription = t.type({ filter: t.string, qos: t.number });

/** A live MQTT connection of a device, on one node. */
export const LiveConnection = t.exact(
  t.intersection([
    t.type({
      node: t.string,
      transport: Transport,
      /** 3 (MQTT 3.1), 4 (3.1.1) or 5. */
      version: t.number,
      /** The device's address: after the PROXY protocol, the one the balancer names (net/proxy-protocol-listener.ts). */
      address: t.string,
      /** ISO 8601. */
      connectedSince: t.string,
      /** Seconds, as the CONNECT asked; 0: none. */
      keepalive: t.number,
      /** Clean Session (3.1.1) or Clean Start (5). */
      clean: t.boolean,
      subscriptions: t.array(HeldSubscription),
    }),
    t.partial({
      /** Messages in the session's queue not yet sent, and sent ones not yet acknowledged; absent when the store did not answer. */
      queued: t.number,
      inFlight: t.number,
    }),
  ]),
);
export type LiveConnection = t.TypeOf<typeof LiveConnection>;

export const EventKind = t.keyof({ connected: null, disconnected: null, refused: null, kicked: null });
export type EventKind = t.TypeOf<typeof EventKind>;

/** One entry of a device's history on one node. */
export const ConnectionEvent = t.exact(
  t.intersection([
    t.type({
      /** ISO 8601. */
      at: t.string,
      node: t.string,
      kind: EventKind,
    }),
    t.partial({
      transport: Transport,
      version: t.number,
      address: t.string,
      /** Why it ended or was refused, one of connections/reasons.ts; a kick's own reason for `kicked`. */
      reason: t.string,
      /** What the service said, e.g. the refusal's message or the socket error; never a credential. */
      detail: t.string,
    }),
  ]),
);
export type ConnectionEvent = t.TypeOf<typeof ConnectionEvent>;

/** One node's part of a device's connections: what it answers on the backbone. */
export const NodeConnections = t.exact(
  t.type({
    node: t.string,
    connections: t.array(LiveConnection),
    history: t.array(ConnectionEvent),
  }),
);
export type NodeConnections = t.TypeOf<typeof NodeConnections>;

/** POST /v2/admin/devices/:deviceid/kick: an optional reason, recorded in the history and told to MQTT 5 clients. */
export const KickRequest = closed({}, { reason: t.string });
export type KickRequest = t.TypeOf<typeof KickRequest>;
