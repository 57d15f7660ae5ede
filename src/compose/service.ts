import { createServer as createHttpServer, Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, Server as TcpServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type Database from 'better-sqlite3';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { version as VERSION } from '../../package.json';
import { createMqttBackbone } from '../adapters/backbone/mqtt-backbone';
import { openSqliteDatabase } from '../adapters/sqlite/sqlite-database';
import { createSqliteFleetSource } from '../adapters/sqlite/sqlite-fleet-source';
import { sqliteReadinessCheck } from '../adapters/sqlite/sqlite-readiness';
import { Applications, createApplications } from '../applications/service';
import { registerNode } from '../cluster/node-registration';
import { silentChangeFeed } from '../cluster/port';
import { SHARED_STATE_MAX_AGE_MS } from '../cluster/read-cache';
import { CoapServer, createCoapServer } from '../coap/server';
import { ADMIN_TOKEN_ADVISED_LENGTH, adminLoginHint, announceGeneratedAdminToken, resolveAdminToken } from '../config/admin-token';
import { Config } from '../config/config';
import { prepareDataDir } from '../config/data-dir';
import { cachedDatatagStore } from '../datatags/cached-datatag-store';
import { createDatatagService } from '../datatags/service';
import { DemoMode, loopbackMqttUrl, reachableBaseUrl, startDemo } from '../demo/demo-mode';
import { loadCredentialKey } from '../devices/credential-key';
import { createDeviceCache } from '../devices/device-cache';
import { createAdmission } from '../devices/admission';
import { createStatusNotices } from '../devices/status-notices';
import { createPresence } from '../devices/presence';
import { createRegistry } from '../devices/service';
import { ReadinessCheck } from '../health/port';
import { AppDeps, createApp, createRequestListener } from '../http/app';
import { createGroupTraffic } from '../messaging/group-traffic';
import { createMessagingService } from '../messaging/service';
import { countBackendErrors } from '../metrics/backend-errors';
import { createServiceMetrics } from '../metrics/service-metrics';
import { observePointWriter, observeShadowWrites } from '../metrics/store-metrics';
import { AedesBroker, createAedesBroker } from '../mqtt/broker';
import { coalesceWrites } from '../mqtt/coalesced-writes';
import { observeAedes } from '../mqtt/broker-metrics';
import { mqttListenerReadinessCheck } from '../mqtt/listener-readiness';
import { createAedesMessageWatch } from '../mqtt/message-watch';
import { createMqttOverWebSocket, MqttOverWebSocket } from '../mqtt/websocket';
import { acceptProxyProtocol } from '../net/proxy-protocol-listener';
import { createFailureThrottle } from '../ratelimit/failure-throttle';
import { createKeyedRateLimiter } from '../ratelimit/keyed-rate-limiter';
import { createSharedRateLimiter } from '../ratelimit/shared-rate-limit';
import { createOperators } from '../operators/service';
import { createPushService } from '../push/service';
import { createShadowNotices } from '../shadows/notices';
import { createFleetIndex } from '../fleet/fleet-index';
import { followFleetNotices } from '../fleet/follow-notices';
import { createFleetQueries } from '../fleet/service';
import { storeFleetSource } from '../fleet/store-fleet-source';
import { checkedDesiredStore, DESIRED_CHECK_MAX_AGE_MS } from '../desired/cached-desired-store';
import { createDeltaPush } from '../desired/notices';
import { createDesiredService, withDeltaOnDataWrites } from '../desired/service';
import { createShadowService } from '../shadows/service';
import { createDataQueries } from '../timeseries/data-queries';
import { createOutboxRelay } from '../timeseries/outbox-relay';
import { createRetention } from '../timeseries/retention-policy';
import { createQuickJsSandbox } from '../timeseries/sandbox/quickjs-sandbox';
import { createDataStore } from '../timeseries/service';
import { cachedRevokedTokens } from '../tokens/cached-revoked-tokens';
import { createUserTokens } from '../tokens/user-tokens';
import { createConnectionLog } from '../connections/connection-log';
import { createConnectionInspector } from '../connections/inspector';
import { CONNECTION_LOG_LIMITS } from '../connections/limits';
import { createAutomation } from './automation';
import { openSessionBackend } from './session-backend';
import { openStoreBackend } from './store-backend';
import { openTimeSeriesBackend } from './timeseries-backend';
import { composeRollups } from './rollups';
import { DirtyRanges } from '../timeseries/rollups/dirty-ranges';
import { trackWrites } from '../timeseries/rollups/maintainer';

/** What the composition takes besides the configuration. */
export interface ServiceOptions {
  /** Checked by /readyz after the built-in ones (tests inject faults here). */
  readinessChecks?: readonly ReadinessCheck[];
  /**
   * The registry and shadow database, opened by the caller and left open on close. Nodes of one cluster share their
   * registry (in production through a shared store); test/integration/backbone runs two nodes of one process on one.
   */
  sharedDatabase?: Database.Database;
  /** How long a node uses what it read of shared state (STORE=cassandra); tests shorten it to measure the bound. */
  sharedStateMaxAgeMs?: number;
  /** The credential key file, when the nodes of a test cluster (separate DATA_DIRs) must share one. */
  credentialKeyFile?: string;
}

/** Every listener of the service, built and not listening; server.ts binds and closes them. */
export interface Listeners {
  http: HttpServer;
  https?: HttpServer;
  mqtt: TcpServer;
  mqtts?: TcpServer;
  /** MQTT over WebSocket on its own port (MQTT_WS_PORT); HTTP(S) serve it on /mqtt in any case. */
  mqttWs?: HttpServer;
  coap: CoapServer;
}

/** The service built: its listeners, and the parts of shutdown that are not about sockets. */
export interface ComposedService {
  adminToken: string;
  /** The HTTP application, never listening itself (test/integration/docs lists its routes). */
  app: Koa;
  broker: AedesBroker;
  mqttWs: MqttOverWebSocket;
  listeners: Listeners;
  /** Application keys (issue 22): the Flow Channel's log-in checks `applications.check(key, secret)`. */
  applications: Applications;
  /** Once every listener is bound: queued points go on, and demo mode starts. `listeners` names every bound port (GET /). */
  started(ports: { httpPort: number; mqttPort: number; listeners?: readonly { name: string; port: number }[] }): Promise<void>;
  /** First step of shutdown: the demo stops and no more triggers fire (closing sessions would look like every device going offline). */
  quiesce(): Promise<void>;
  /** After the requests in flight, which may still publish through it. */
  closeBackbone(): Promise<void>;
  /** Last: the outbox, the sandbox, automation, the time-series store and the stores, in that order. */
  closeBackends(): Promise<void>;
}

/** Resolves once `check` passes, or after `ms` anyway (the periodic upkeep tries again later). */
async function whenReady(check: ReadinessCheck, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100).unref())) {
    if (await check.check().then(() => true, () => false)) return;
  }
}

/**
 * The composition root: config -> adapters -> services -> HTTP app, MQTT broker and CoAP server, with the Node
 * servers that carry them. Never listens (server.ts does).
 */
export async function composeService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<ComposedService> {
  prepareDataDir(config.dataDir, logger);
  const admin = resolveAdminToken(config.adminToken, config.dataDir);
  // Printed once, on the start that made it, to stderr; it stays in DATA_DIR/admin-token.
  if (admin.created) announceGeneratedAdminToken(config.dataDir, admin.token);
  // ADMIN_TOKEN's documented minimum stays 16 characters; a shorter one than those the service makes is named at start.
  if (admin.token.length < ADMIN_TOKEN_ADVISED_LENGTH) {
    logger.warn({ length: admin.token.length }, `ADMIN_TOKEN has fewer than ${ADMIN_TOKEN_ADVISED_LENGTH} characters: set a longer one (e.g. 40 random characters)`);
  }
  const now = () => Date.now();
  const metrics = createServiceMetrics();
  const db = options.sharedDatabase ?? openSqliteDatabase(config.dataDir);
  // STORE: the registry, shadows and point outbox in that database, or in Cassandra.
  // CREDENTIAL_KEY_FILE: the key device credentials are kept as digests with; made on first start when missing, the
  // same file on every node of a cluster (docs/production.md "Credential key").
  const credentialKeyFile = options.credentialKeyFile ?? config.credentialKeyFile;
  const { key: credentialKey } = loadCredentialKey(credentialKeyFile, { createIfMissing: true });
  const store = await openStoreBackend(config.store, db, {
    userTokenKeyFile: config.userTokenKeyFile,
    credentialKey,
    nodeId: config.nodeId,
    auditRetentionDays: config.auditRetentionDays,
    onRevisionLost(deviceid, err) {
      metrics.shadowRevisionsLost.inc();
      logger.warn({ deviceid, err }, 'a shadow write stands without its revision in the history');
    },
  }).catch((err: unknown) => {
    if (!options.sharedDatabase) db.close();
    throw err;
  });
  // A shared store: one running node per NODE_ID, checked before anything is served.
  const registration =
    store.nodes &&
    (await registerNode({ registry: store.nodes, nodeId: config.nodeId, logger }).catch(async (err: unknown) => {
      await store.close();
      if (!options.sharedDatabase) db.close();
      throw err;
    }));
  // Every call reads its device: kept in memory, dropped on every change (devices/device-cache.ts). A failing store
  // empties it, so that while the store is down devices are refused as unavailable, as without the cache.
  const forgetDevices = () => devices.forgetAll();
  const devices = createDeviceCache(countBackendErrors(store.name, store.devices, metrics, forgetDevices), { now });
  const shadows = countBackendErrors(store.name, observeShadowWrites(store.shadows, metrics), metrics, forgetDevices);
  // TIMESERIES: the embedded engine (SQLite in DATA_DIR) or KairosDB.
  const timeseries = openTimeSeriesBackend(config, logger);
  // Roll-ups (issue 23 §3): every point written marks its time for the tiers' job (composeRollups below).
  const rollupDirty = new DirtyRanges();
  const writer = trackWrites(countBackendErrors('timeseries', observePointWriter(timeseries.writer, metrics), metrics), rollupDirty);
  const relay = createOutboxRelay(shadows, writer, logger);
  const sandbox = createQuickJsSandbox({}, { workers: config.limits.sandbox.workers, perTenant: config.limits.sandbox.perCaller });
  const queries = countBackendErrors('timeseries', timeseries.queries({ writer, sandbox }), metrics);
  // BACKBONE_URL: this node joins others through an MQTT broker (docs/production.md "Production backends: MQTT backbone").
  const backbone = config.backbone && createMqttBackbone({ ...config.backbone, nodeId: config.nodeId, presence: createPresence(now), logger });
  const presence = backbone ? backbone.presence : createPresence(now);
  // Admin changes of what nodes share (STORE=cassandra) are told to the other nodes, so they drop their copies.
  const changes = backbone ? backbone.changes : silentChangeFeed();
  // A device changed here is forgotten by the other nodes' caches at once; a missed notice ('all') forgets every device.
  devices.onChange((deviceid) => changes.announce({ kind: 'device', key: deviceid }));
  changes.listen((notice) => {
    if (notice === 'all') devices.forgetAll();
    else if (notice.kind === 'device') devices.forget(notice.key);
  });
  const sharedStateMaxAgeMs = options.sharedStateMaxAgeMs ?? SHARED_STATE_MAX_AGE_MS;
  // How long points are kept (issue 23 §2): a project's own retention, else POINT_RETENTION; read through a cache
  // each node keeps, dropped on a change here or a notice from another node.
  const retention = createRetention({
    store: countBackendErrors(store.name, store.projectRetention, metrics),
    serviceDefaultMs: config.retention.defaultMs,
    changes,
    cache: { maxAgeMs: sharedStateMaxAgeMs, now },
  });
  // `broker` is asked for only when a MESSAGE hook runs, once the service is listening.
  const automation = createAutomation({
    store,
    changes,
    sharedStateMaxAgeMs,
    nodeId: config.nodeId,
    devices,
    logger,
    metrics,
    now,
    webhooks: config.webhooks,
    bus: () => broker.messages,
  });
  presence.observe(automation.runner.statusChanged);
  // `@device/status/changed` for applications watching a device (mqtt/flow-channel/); the broker is built below.
  const statusNotices = createStatusNotices({ devices, presence, bus: () => broker.messages, logger });
  presence.observe(statusNotices.observer);
  // One bucket per device; with a backbone, one budget per device in the whole cluster (ratelimit/shared-rate-limit.ts).
  const deviceBuckets = createKeyedRateLimiter({ ratePerSecond: config.rateLimitRps, burst: config.rateLimitBurst });
  const rateLimiter = backbone ? createSharedRateLimiter(deviceBuckets, backbone.rateUsage) : deviceBuckets;
  // Failed credential checks by address and target, one node's memory: every door asks it (devices/admission.ts, admin).
  const failures = createFailureThrottle(now);
  // The one way in for devices on every transport: credentials, one rate-limit bucket per device (its REST and CoAP
  // calls and its MQTT publishes), the quotas (devices/admission.ts).
  const admission = createAdmission({
    devices,
    credentialKey,
    presence,
    rateLimiter,
    quotas: automation.quotas,
    failures,
    metrics,
    logger,
    now,
    // Application keys, made below: asked only when an application logs in.
    applications: { check: (key, secret) => applications.check(key, secret) },
  });
  const rollups = composeRollups({
    store: countBackendErrors(store.name, store.rollups, metrics),
    changes,
    cache: { maxAgeMs: sharedStateMaxAgeMs, now },
    devices,
    dirty: rollupDirty,
    queries,
    writer: timeseries.writer,
    eraser: timeseries.eraser,
    embedded: config.timeseries.kind !== 'kairosdb',
    logger,
    now,
  });
  // A delete deletes the tier buckets it covers whole and marks its edges for the tiers' job.
  const eraser = rollups.maintainer.trackDeletes(countBackendErrors('timeseries', timeseries.eraser, metrics));
  // Datatags (issue 23 §1): read on every write through a cache each node keeps, like schemas.
  const datatags = createDatatagService({
    store: cachedDatatagStore(countBackendErrors(store.name, store.automation.datatags, metrics), changes, { maxAgeMs: sharedStateMaxAgeMs, now }),
    devices,
    eraser,
    writer,
    relay,
    retention,
    now,
  });
  // Desired state and its delta (issue 25 §2): every data write of a device with a desired document pushes its delta.
  const desired = createDesiredService({
    devices,
    // A node alone is the only writer of its desired documents: its answers stand until it changes one.
    store: checkedDesiredStore(countBackendErrors(store.name, store.desired, metrics), changes, {
      maxAgeMs: store.name === 'cassandra' ? DESIRED_CHECK_MAX_AGE_MS : Infinity,
      now,
    }),
    shadows,
    now,
    schemaFor: automation.schemas.schemaFor,
    quotas: automation.quotas,
    push: createDeltaPush(() => broker.messages, logger),
    logger,
  });
  const shadowService = createShadowService({
    devices,
    shadows,
    relay,
    now,
    schemaFor: automation.schemas.schemaFor,
    quotas: automation.quotas,
    onUpdated: automation.runner.shadowUpdated,
    // `@shadow/data/updated` for every applied write, whatever its transport; the broker is built below.
    notices: withDeltaOnDataWrites(createShadowNotices(() => broker.messages, logger), desired),
    retention,
    datatagsFor: datatags.datatagsFor,
    history: countBackendErrors(store.name, store.shadowHistory, metrics),
  });
  // `@push` and `PUT /push`: DEVICE.PUSH events for the device's triggers.
  const push = createPushService({ onPush: automation.runner.pushed });
  // Application keys (issue 22): a change that takes a right away ends the key's connections on every node, through
  // `cluster`, made below once the broker exists (asked only when a key changes, after the service is built).
  const applications = createApplications({
    store: countBackendErrors(store.name, store.applications, metrics),
    credentialKey,
    sessions: { disconnect: (key, reason) => cluster.sessions.disconnectDevice(key, reason) },
    now,
  });
  // SESSION_STORE: MQTT sessions and retained messages in SQLite (DATA_DIR) or Redis (shared by the cluster).
  const sessionBackend = openSessionBackend(config);
  // The connection inspector's history: each node its own, in memory (connections/limits.ts).
  const connectionLog = createConnectionLog({ nodeId: config.nodeId, limits: CONNECTION_LOG_LIMITS, now });
  const broker = await createAedesBroker({
    devices,
    presence,
    shadowService,
    desired,
    push,
    logger,
    admission,
    relay: backbone?.relay,
    shares: backbone?.shares,
    sessions: { ...sessionBackend, settings: config.sessions },
    nodeId: config.nodeId,
    connectionLog,
    metrics,
  });
  // Wills of connections a crash cut, before devices can connect again (with a backbone: once it is up, see upkeep).
  if (!backbone) await broker.upkeep.publishOrphanedWills();
  const cluster = backbone ? backbone.join(broker) : broker;
  observeAedes(broker.aedes, metrics);
  // The fleet query (docs/fleet-query.md): each project's devices and shadows in memory, read at its first query and
  // kept up to date by every shadow notice and device change, whichever node made it.
  const fleetIndex = createFleetIndex({
    // STORE=sqlite reads a project in one query of openpie.db; Cassandra through its ports, a shadow at a time.
    source: store.name === 'sqlite' ? createSqliteFleetSource(db) : storeFleetSource(devices, shadows),
    projectOf: async (deviceid) => (await devices.getDevice(deviceid))?.projectid,
    settings: config.limits.fleet,
    now,
    onError: (err, deviceid) => logger.warn({ err, deviceid }, 'fleet index: a device was not read again'),
  });
  await followFleetNotices({ index: fleetIndex, watch: createAedesMessageWatch(broker.aedes), devices, changes });
  const mqtt = createTcpServer((socket) => broker.aedes.handle(coalesceWrites(socket)));
  const tlsOptions = config.tls && { cert: config.tls.cert, key: config.tls.key };
  const mqtts = tlsOptions && createTlsServer(tlsOptions, (socket) => broker.aedes.handle(coalesceWrites(socket)));
  const mqttWs = createMqttOverWebSocket(broker.aedes);
  const registry = createRegistry({
    devices,
    sessions: cluster.sessions,
    credentialKey,
    credentialMigration: countBackendErrors(store.name, store.credentialMigration, metrics),
    now,
  });
  const messaging = createMessagingService({ bus: broker.messages });
  const connections = createConnectionInspector({
    log: connectionLog,
    live: broker.connections,
    gathering: backbone?.connections,
    sessions: cluster.sessions,
    limits: CONNECTION_LOG_LIMITS,
  });
  const userTokens = await createUserTokens({
    keys: countBackendErrors(store.name, store.automation.signingKeys, metrics),
    changes,
    now,
    // One node alone (STORE=sqlite) is the only one that rotates its key file: no need to read it again.
    maxAgeMs: store.name === 'cassandra' ? sharedStateMaxAgeMs : undefined,
    // Asked on every call with a user token: answers are kept, dropped by a revocation here or a notice from another node.
    revoked: cachedRevokedTokens(countBackendErrors(store.name, store.automation.revokedTokens, metrics), changes, { maxAgeMs: sharedStateMaxAgeMs, now }),
  });
  // The data-store API: its queries share one set of slots, whichever base they come by (issue 10).
  const dataStore = createDataStore({
    devices,
    admission,
    userTokens,
    adminToken: admin.token,
    queries,
    slots: createDataQueries(queries, config.limits.query, rollups.queries),
    eraser,
    relay,
    now,
    metrics,
  });
  // Known once the MQTT listener is bound (MQTT_PORT=0 picks a port); the console shows it beside new credentials.
  let boundMqttPort = config.mqttPort;
  let boundListeners: readonly { name: string; port: number }[] = [];
  const appDeps: AppDeps = {
    logger,
    adminToken: admin.token,
    // Operator accounts: their keys are digested like device credentials, with the same service key.
    operators: createOperators({ store: countBackendErrors(store.name, store.operators, metrics), credentialKey, now }),
    audit: countBackendErrors(store.name, store.audit, metrics),
    applications,
    now,
    failures,
    devices,
    presence,
    registry,
    messaging,
    connections,
    groupTraffic: createGroupTraffic({ bus: broker.messages, watch: createAedesMessageWatch(broker.aedes), now }),
    shadowService,
    desired,
    push,
    schemas: automation.schemas,
    quotas: automation.quotas,
    triggers: automation.triggers,
    userTokens,
    dataStore,
    rollups: rollups.service,
    fleet: createFleetQueries({ index: fleetIndex, limits: config.limits.fleet, now }),
    retention,
    datatags,
    version: `openpie ${VERSION} (KairosDB 1.2 query API)`,
    metrics,
    metricsToken: config.metricsToken,
    corsOrigins: config.corsOrigins,
    mqttPort: () => boundMqttPort,
    // What the front door (GET /) says runs here; nothing secret: no host, URL or credential.
    serviceFacts: () => ({ nodeId: config.nodeId, store: store.name, timeseries: config.timeseries.kind, listeners: boundListeners }),
    admission,
    limits: config.limits,
    readiness: [
      sqliteReadinessCheck('sqlite', db),
      ...store.readiness,
      ...(registration ? [registration.readiness] : []),
      timeseries.readiness,
      mqttListenerReadinessCheck(mqtt, broker.aedes),
      ...sessionBackend.readiness,
      ...(backbone ? [backbone.readiness] : []),
      ...(options.readinessChecks ?? []),
    ],
  };
  const app = createApp(appDeps);
  const listener = createRequestListener(app, appDeps);
  const http = createHttpServer(listener);
  const https = tlsOptions && createHttpsServer(tlsOptions, listener);
  mqttWs.serveOn(http);
  if (https) mqttWs.serveOn(https);
  const mqttWsServer = config.mqttWsPort === undefined ? undefined : mqttWs.createDedicatedServer();
  // PROXY_PROTOCOL: behind a balancer, every TCP listener reads whom it relays first (docs/operations.md "PROXY protocol").
  const { proxyProtocol } = config;
  if (proxyProtocol) {
    const refused = (why: string, peer: string | undefined) => logger.debug({ peer, why }, 'connection closed: PROXY protocol');
    for (const server of [http, https, mqtt, mqtts, mqttWsServer]) if (server) acceptProxyProtocol(server, proxyProtocol, refused);
  }
  const listeners: Listeners = {
    http,
    https,
    mqtt,
    mqtts,
    mqttWs: mqttWsServer,
    coap: createCoapServer({
      admission,
      messaging,
      shadowService,
      desired,
      push,
      logger,
      uploads: config.limits.coapUploads,
    }),
  };

  let demo: DemoMode | undefined;
  let triggersStopped: Promise<void> | undefined;
  return {
    adminToken: admin.token,
    app,
    broker,
    mqttWs,
    listeners,
    applications,
    async started({ httpPort, mqttPort, listeners }) {
      boundMqttPort = mqttPort;
      boundListeners = listeners ?? [{ name: 'HTTP', port: httpPort }, { name: 'MQTT', port: mqttPort }];
      // Points queued before a stop or crash go on to the time-series store now.
      void relay.flush();
      rollups.maintainer.start();
      // With a backbone, the wills of this node's earlier runs go out once it is connected (a will at QoS 1 needs it).
      if (backbone) void whenReady(backbone.readiness, config.shutdownTimeoutMs).then(() => broker.upkeep.publishOrphanedWills());
      if (!config.demo) return;
      demo = await startDemo({
        registry,
        shadowService,
        userTokens,
        logger,
        baseUrl: reachableBaseUrl(config.host, httpPort),
        now,
        print: (text) => process.stdout.write(text),
        mqttUrl: loopbackMqttUrl(config.mqttHost, mqttPort),
        consoleLogin: adminLoginHint(config.adminToken, config.dataDir),
      });
    },
    async quiesce() {
      statusNotices.stop();
      await demo?.stop();
      triggersStopped = automation.runner.close();
    },
    closeBackbone: async () => backbone?.close(),
    async closeBackends() {
      // Points still in the outbox go on now if the time-series store takes them in time; else the next start sends them.
      await Promise.race([relay.flush(), new Promise((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref())]);
      await relay.close();
      await rollups.maintainer.close();
      await sandbox.close();
      await triggersStopped;
      await automation.close();
      await registration?.close();
      timeseries.close();
      await sessionBackend.store.destroy();
      await store.close();
      if (!options.sharedDatabase) db.close();
    },
  };
}
