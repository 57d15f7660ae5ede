import type { Aedes, Client, ConnectPacket } from 'aedes';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { LiveConnection, Transport } from '../connections/codecs';
import { ConnectionLog } from '../connections/connection-log';
import { LiveConnections } from '../connections/port';
import { DISCONNECT_REASONS, refusalReason } from '../connections/reasons';
import { Device } from '../devices/device';
import { externalTopic } from '../messaging/topics';
import { SessionStore } from '../sessions/port';
import { connectedClients, subscriptionsOf } from './aedes-patches';
import { beforeAedesHandles, holdsSession } from './aedes2-patches';
import { sourceOf } from './connection-source';
import { isDeviceIdForm } from './v5/refusals';

/** What the broker tells the connection inspector (connections/), and what it reads back of a live connection. */
export interface ConnectionInspection extends LiveConnections {
  /** preConnect: what the CONNECT asked for (keepalive, clean). */
  connecting(client: Client, packet: ConnectPacket): void;
  /** The authenticate hook refused the CONNECT; `code` is the refusal's error code (core/errors.ts), if it had one. */
  refused(client: Client, why: string, code: string | undefined): void;
  /** The service closes the session (session-control.ts): a kick, the registry's, or a take-over on another node. */
  closing(client: Client, reason: string, takenOver: boolean): void;
}

interface Opened {
  since: number;
  keepalive: number;
  clean: boolean;
}

/**
 * Feeds a node's ConnectionLog from aedes' events and answers what a device's live connection looks like. Device
 * connections only: applications (Flow Channel, flow-channel/) are not devices and are not listed.
 */
export function createConnectionInspection(deps: {
  aedes: Aedes;
  scopes: WeakMap<Client, Device>;
  store: Pick<SessionStore, 'outgoingStream'>;
  log: ConnectionLog;
  now: () => number;
}): ConnectionInspection {
  const { aedes, scopes, store, log, now } = deps;
  const opened = new WeakMap<Client, Opened>();
  /** Why a connection is ending, when something said so before aedes emits clientDisconnect. */
  const ending = new WeakMap<Client, { reason: string; detail?: string }>();
  const endWith = (client: Client, reason: string, detail?: string) => {
    if (!ending.has(client)) ending.set(client, { reason, detail });
  };
  const described = (client: Client) => ({ transport: transportOf(client), version: client.version ?? 4, address: sourceOf(client) });

  aedes.on('clientReady', (client) => {
    if (!scopes.has(client) || client.closed) return;
    const open = opened.get(client);
    if (open) open.since = now();
    else opened.set(client, { keepalive: 0, clean: true, since: now() });
    beforeAedesHandles(client, (packet) => {
      if (packet.cmd === 'disconnect') endWith(client, DISCONNECT_REASONS.clientDisconnect);
    });
    log.record(client.id, { kind: 'connected', ...described(client) });
  });
  aedes.on('clientError', (client, err) => {
    if (err.message === 'keep alive timeout') endWith(client, DISCONNECT_REASONS.keepaliveTimeout);
    else endWith(client, DISCONNECT_REASONS.socketError, err.message);
  });
  aedes.on('clientDisconnect', (client) => {
    if (!opened.get(client)?.since || !scopes.has(client)) return;
    // A take-over here: aedes closes the older connection while it registers the newer one [MQTT-3.1.4-3].
    if (holdsSession(aedes, client.id)) endWith(client, DISCONNECT_REASONS.takenOver);
    if (aedes.closed) endWith(client, DISCONNECT_REASONS.nodeStopping);
    const end = ending.get(client) ?? { reason: DISCONNECT_REASONS.connectionLost };
    log.record(client.id, { kind: 'disconnected', ...described(client), ...end });
  });

  return {
    connecting(client, packet) {
      opened.set(client, { keepalive: packet.keepalive ?? 0, clean: packet.clean ?? true, since: 0 });
    },
    refused(client, why, code) {
      // A ClientID that is not a device id names no device's history: a flood of them must not evict real ones.
      if (!scopes.has(client) && !isDeviceIdForm(client.id)) return;
      log.record(client.id, { kind: 'refused', ...described(client), reason: refusalReason(code), detail: why });
    },
    closing(client, reason, takenOver) {
      endWith(client, takenOver ? DISCONNECT_REASONS.takenOver : DISCONNECT_REASONS.kicked, reason);
    },
    async connectionsOf(deviceid) {
      const client = connectedClients(aedes)[deviceid];
      const scope = client && scopes.get(client);
      const open = client && opened.get(client);
      if (!client || !scope || !open?.since || client.closed) return [];
      const subscriptions = Object.entries(subscriptionsOf(client)).flatMap(([filter, { qos }]) => {
        const external = externalTopic(scope, filter);
        return external === undefined ? [] : [{ filter: external, qos }];
      });
      const connection: LiveConnection = {
        node: log.nodeId,
        ...described(client),
        connectedSince: new Date(open.since).toISOString(),
        keepalive: open.keepalive,
        clean: open.clean,
        subscriptions,
      };
      return [{ ...connection, ...(await queueOf(store, deviceid)) }];
    },
  };
}

/** Counts the session's outgoing queue: a packet with a packet id was sent and waits for its acknowledgement. */
async function queueOf(store: Pick<SessionStore, 'outgoingStream'>, clientId: string): Promise<{ queued?: number; inFlight?: number }> {
  try {
    let queued = 0;
    let inFlight = 0;
    for await (const packet of store.outgoingStream({ id: clientId })) {
      if ((packet as { messageId?: number }).messageId === undefined) queued++;
      else inFlight++;
    }
    return { queued, inFlight };
  } catch {
    // The store did not answer: the counts are left out, the rest of the answer stands.
    return {};
  }
}

function transportOf(client: Client): Transport {
  const req = client.req as IncomingMessage | undefined;
  if (req) return (req.socket as Partial<TLSSocket>).encrypted ? 'wss' : 'ws';
  return (client.conn as Partial<TLSSocket>).encrypted ? 'tls' : 'tcp';
}
