import { Aedes, Client } from 'aedes';
import { randomUUID } from 'node:crypto';
import { LiveConnections } from '../connections/port';
import { Device } from '../devices/device';
import { SessionControl } from '../devices/port';
import { MessageBus, RelayedMessage } from '../messaging/port';
import { internalFilter } from '../messaging/topics';
import { connectedClients, endServedPublishes, rewriteFilters, stopReading } from './aedes-patches';
import { closeUnlessConnectFirst, holdsSession } from './aedes2-patches';
import { lingerOnDestroy, SHUTDOWN_LINGER_MS } from './linger';
import { authenticateHook } from './authenticate';
import { authorizeForwardHook } from './authorize-forward';
import { authorizePublishHook } from './authorize-publish';
import { authorizeSubscribeHook } from './authorize-subscribe';
import { createConnectionInspection } from './connection-inspection';
import { AedesBrokerDeps, HookContext } from './hook-context';
import { guardedPersistence } from './guarded-persistence';
import { createMessagePipeline } from './message-pipeline';
import { ApplicationConnection } from './flow-channel/application-connection';
import { applicationFilter } from './flow-channel/flow-channel';
import { createBrokerSessions } from './session-control';
import { sessionPersistence } from './session-persistence';
import { createSessionResume } from './session-resume';
import { createSessionUpkeep, SessionUpkeep } from './session-upkeep';
import { createShadowTopics } from './shadow-topics';
import { attachDesiredDelta } from './desired-delta';
import { storeFailures } from './store-failures';
import { createMqtt5 } from './v5/mqtt5';

export type { AedesBrokerDeps } from './hook-context';

export interface AedesBroker {
  aedes: Aedes;
  /** Publishes to this node's connections only, at QoS 0 (replies and notices to devices connected here). */
  bus: MessageBus;
  /**
   * Publishes an accepted message (REST, CoAP, hooks, the console): kept as retained, queued for persistent sessions,
   * carried to the other nodes, delivered here (message-pipeline.ts). Resolves once all of that is done.
   */
  messages: MessageBus;
  sessions: SessionControl;
  /** This node's live device connections, for the connection inspector (connection-inspection.ts). */
  connections: LiveConnections;
  /** Delivers a message another node accepted (the backbone calls it). */
  deliver(message: RelayedMessage): Promise<void>;
  /** Closes every session whose device was deleted, disabled, banned, moved or given a new token since it connected. */
  recheckSessions(): Promise<void>;
  upkeep: SessionUpkeep;
  /** The backbone's news of the other nodes (session-upkeep.ts takes over the sessions and wills of a node gone). */
  nodeLeft(node: string): void;
  nodeBack(node: string): void;
  /**
   * First step of a shutdown: stops reading from every connection, then waits (at most `ms`) for the publishes already
   * read to be kept and acknowledged, so a device is never left without the PUBACK of a message that was kept; the
   * close that follows hangs up on each connection instead of cutting it (linger.ts), so those PUBACKs arrive.
   */
  drain(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The device-facing broker (issue 2, section 4): aedes with one hook per file, like aedes' own handlers. Devices
 * connect with ClientID = deviceid, username = token and password = secret or empty. Every topic and filter is
 * rewritten into the device's scope on the way in and back on the way out (messaging/topics.ts), so groups and
 * private channels stay apart. Sessions live in the session store (docs/mqtt.md "Persistent sessions").
 */
export async function createAedesBroker(deps: AedesBrokerDeps): Promise<AedesBroker> {
  const { presence, logger, sessions: { store, shared, settings } } = deps;
  const scopes = new WeakMap<Client, Device>();
  const apps = new WeakMap<Client, ApplicationConnection>();
  /** How a connection's UNSUBSCRIBE filters map to the internal ones its SUBSCRIBEs were stored under. */
  const filtersOf = (client: Client) => {
    const scope = scopes.get(client);
    if (scope) return (filter: string) => internalFilter(scope, filter);
    const conn = apps.get(client);
    return conn && ((filter: string) => applicationFilter(conn, filter));
  };
  const withoutClientId = new WeakSet<Client>();
  // MQTT 5 (aedes 2) and the aedes 1.2.0 security fixes: mqtt/v5/mqtt5.ts.
  const mqtt5 = createMqtt5({ logger, scopes, shares: deps.shares });
  const resume = createSessionResume(logger);
  const aedes = await Aedes.createBroker({
    ...mqtt5.options,
    // The node's name, then this run's: wills name the run that stored them (session-upkeep.ts, orphaned wills).
    id: `${deps.nodeId}:${randomUUID().slice(0, 8)}`,
    persistence: guardedPersistence(
      sessionPersistence(store, scopes, resume.replaying, (clientId) => holdsSession(aedes, clientId)),
      storeFailures(logger, deps.metrics),
    ) as never,
    // Device ids are 36-character UUIDs; MQTT 3.1 capped ClientIDs at 23 characters, aedes keeps that cap by default.
    maxClientsIdLength: 128,
    // A second connection with the same ClientID takes over and the first is closed [MQTT-3.1.4-2]; aedes does it.
    preConnect(client, packet, done) {
      // aedes hands a CONNECT it queued before CONNACK to preConnect even when a packet before it closed the client
      // (lib/client.js dequeue): such a connection is over.
      if (client.closed) return done(new Error('connection closed'), false);
      if (packet.clientId === '') withoutClientId.add(client);
      rewriteFilters(client, filtersOf);
      mqtt5.connecting(client, packet);
      resume.connecting(client, packet);
      connections.connecting(client, packet);
      done(null, true);
    },
  });
  mqtt5.attach(aedes);
  resume.attach(aedes);
  closeUnlessConnectFirst(aedes);
  endServedPublishes(aedes);
  const connections = createConnectionInspection({ aedes, scopes, store, log: deps.connectionLog, now: Date.now });
  // aedes emits what it cannot pin on one client on itself (a session it could not wipe, an enqueue that failed); an
  // EventEmitter's 'error' with no listener throws, which would end the process. The store call is counted already.
  (aedes as unknown as NodeJS.EventEmitter).on('error', (err: Error) => logger.warn({ err: err.message }, 'mqtt broker error'));
  const pipeline = createMessagePipeline({
    aedes,
    store,
    sharedStore: shared,
    relay: deps.relay,
    retainedPerGroupLimit: settings.retainedPerGroupLimit,
    onDropped: (count) => deps.metrics.mqttQueueDropped.inc(count),
  });
  deps.metrics.observeQueuedMessages(() => store.queuedMessages());
  const bus: MessageBus = {
    publish: (topic, payload, options = {}) =>
      new Promise<void>((resolve, reject) =>
        aedes.publish(
          { cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false, ...(options.properties && { properties: options.properties }) },
          (err) => (err ? reject(err) : resolve()),
        ),
      ),
  };
  // The hooks' context, whole before any hook is made; no client can connect before the hooks are in place (the
  // listeners start once the service is composed).
  const ctx: HookContext = {
    ...deps,
    scopes,
    apps,
    withoutClientId,
    bus,
    shadowTopics: createShadowTopics({ shadowService: deps.shadowService, desired: deps.desired, bus, logger }),
    pipeline,
    store,
    publishesInFlight: new Set(),
    connections,
  };
  aedes.authenticate = authenticateHook(ctx);
  aedes.authorizePublish = mqtt5.guardPublish(authorizePublishHook(ctx));
  aedes.authorizeSubscribe = mqtt5.guardSubscribe(authorizeSubscribeHook(ctx));
  aedes.authorizeForward = authorizeForwardHook(ctx);
  if (deps.desired) attachDesiredDelta(aedes, scopes, deps.desired);
  const upkeep = createSessionUpkeep({
    aedes,
    store,
    sharedStore: shared,
    nodeId: deps.nodeId,
    pipeline: pipeline,
    bus: bus,
    devices: deps.devices,
    isConnected: (deviceid) => presence.isConnected(deviceid),
    expirySeconds: settings.expirySeconds,
    queueLimit: settings.queueLimit,
    logger,
    now: Date.now,
  });

  // Presence counts client objects, not ids: a client that hangs up right after CONNECT can be reported
  // disconnected before it is reported ready, and must then not count as online.
  const online = new WeakSet<Client>();
  /** This node's application connections, for the kicks of their keys (session-control.ts). */
  const applicationClients = new Set<Client>();
  aedes.on('clientReady', (client) => {
    // An application is not a device: it has no presence (flow-channel/).
    if (apps.has(client)) {
      applicationClients.add(client);
      return deps.metrics.applicationConnections.inc();
    }
    if (client.closed || online.has(client)) return;
    online.add(client);
    presence.connected(client.id);
    logger.debug({ deviceid: client.id }, 'mqtt client connected');
  });
  aedes.on('clientDisconnect', (client) => {
    if (applicationClients.delete(client)) return deps.metrics.applicationConnections.dec();
    if (apps.has(client)) return;
    if (!online.delete(client)) return;
    presence.disconnected(client.id);
    logger.debug({ deviceid: client.id }, 'mqtt client disconnected');
  });
  aedes.on('clientError', (client, err) => logger.debug({ deviceid: client.id, err: err.message }, 'mqtt client error'));

  const control = createBrokerSessions(aedes, scopes, { apps, open: applicationClients }, deps.devices, logger, connections);
  return {
    aedes,
    bus: bus,
    messages: {
      publish: (topic, payload, options = {}) =>
        pipeline.accept({ topic, payload, qos: options.qos ?? 0, retain: options.retain ?? false, properties: options.properties }),
    },
    deliver: (message) => (aedes.closed ? Promise.resolve() : pipeline.deliverRelayed(message)),
    recheckSessions: control.recheckSessions,
    sessions: { disconnectDevice: control.disconnectDevice },
    connections: { connectionsOf: connections.connectionsOf },
    upkeep,
    nodeLeft: upkeep.nodeLeft,
    nodeBack: upkeep.nodeBack,
    async drain(ms) {
      mqtt5.leaveShares();
      for (const client of Object.values(connectedClients(aedes))) {
        if (!client) continue;
        stopReading(client);
        lingerOnDestroy(client.conn, SHUTDOWN_LINGER_MS);
      }
      if (ctx.publishesInFlight.size === 0) return;
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
      while (ctx.publishesInFlight.size > 0) {
        const settled = await Promise.race([Promise.allSettled([...ctx.publishesInFlight]).then(() => true), deadline.then(() => false)]);
        if (!settled) return logger.warn({ publishes: ctx.publishesInFlight.size }, 'shutdown: publishes still in flight after the drain bound');
      }
      // aedes writes the acknowledgement once the hook answers: let it reach the socket before the connections close.
      await new Promise((resolve) => setImmediate(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        upkeep.close();
        // Closing each connection records its session's deadline and its will's delay: in the store before it closes.
        aedes.close(() => void upkeep.settled().then(resolve));
      }),
  };
}
