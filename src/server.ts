import { mkdirSync } from 'node:fs';
import { createServer as createHttpServer, Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, Server as TcpServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type Database from 'better-sqlite3';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { createAedesBroker } from './adapters/aedes-broker';
import { createMqttBackbone } from './adapters/mqtt-backbone';
import { createAedesMessageWatch } from './adapters/aedes-message-watch';
import { createCoapServer } from './adapters/coap-server';
import { createMqttOverWebSocket } from './adapters/mqtt-websocket';
import { trackOpenConnections } from './adapters/open-connections';
import { openSqliteDatabase } from './adapters/sqlite-database';
import { mqttListenerReadinessCheck } from './adapters/mqtt-listener-readiness';
import { sqliteReadinessCheck } from './adapters/sqlite-readiness';
import { resolveAdminToken } from './admin-token';
import { version as VERSION } from '../package.json';
import { createApp } from './app';
import { createAutomation } from './automation';
import { Config } from './config';
import { DemoMode, reachableBaseUrl, startDemo } from './demo/demo-mode';
import { createPresence } from './devices/presence';
import { createRegistry } from './devices/service';
import { ReadinessCheck } from './health/port';
import { createGroupTraffic } from './messaging/group-traffic';
import { createMessagingService } from './messaging/service';
import { observeAedes } from './metrics/aedes-metrics';
import { countBackendErrors } from './metrics/backend-errors';
import { createServiceMetrics } from './metrics/service-metrics';
import { observePointWriter, observeShadowWrites } from './metrics/store-metrics';
import { createKeyedRateLimiter } from './ratelimit/keyed-rate-limiter';
import { createMqttPublishLimit } from './ratelimit/mqtt-publish-limit';
import { createShadowService } from './shadows/service';
import { createOutboxRelay } from './timeseries/outbox-relay';
import { createQuickJsSandbox } from './timeseries/sandbox/quickjs-sandbox';
import { openTimeSeriesBackend } from './timeseries-backend';
import { openStoreBackend } from './store-backend';
import { createUserTokens } from './tokens/user-tokens';

export interface RunningServer {
  httpPort: number;
  mqttPort: number;
  coapPort: number;
  /** MQTT over WebSocket on MQTT_WS_PORT; undefined when it is unset (the HTTP server's /mqtt serves it anyway). */
  mqttWsPort?: number;
  /** MQTT over TLS and HTTPS (with WSS on /mqtt); undefined without TLS_CERT_FILE and TLS_KEY_FILE. */
  mqttsPort?: number;
  httpsPort?: number;
  adminToken: string;
  /** The HTTP application, never listening itself (test/integration/docs lists its routes). */
  app: Koa;
  /** Idempotent: stops accepting, lets in-flight requests finish, closes MQTT sessions, then the store. */
  close(): Promise<void>;
}

export class PortInUseError extends Error {}

function listen(server: HttpServer | TcpServer, port: number, host: string, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(`${name} port ${port} on ${host} is already in use`) : err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Listens when the listener is configured: its port, else undefined. */
const listenIfSet = (server: HttpServer | TcpServer | undefined, port: number | undefined, host: string, name: string) =>
  server && port !== undefined ? listen(server, port, host, name) : Promise.resolve(undefined);

const closeServer = (server: HttpServer | TcpServer) =>
  new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

/** What the composition takes besides the configuration. */
export interface ServerOptions {
  /** Checked by /readyz after the built-in ones (backends added by later issues; tests inject faults here). */
  readinessChecks?: readonly ReadinessCheck[];
  /**
   * The registry and shadow database, opened by the caller and left open on close. Nodes of one cluster share their
   * registry (in production through a shared store); test/integration/backbone runs two nodes of one process on one.
   */
  sharedDatabase?: Database.Database;
}

/** Composition: config -> adapters -> services -> HTTP app and MQTT broker, listening. */
export async function startServer(config: Config, logger: Logger, options: ServerOptions = {}): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const admin = resolveAdminToken(config.adminToken, config.dataDir);
  if (admin.created) {
    // Printed once, on the start that made it; it stays in DATA_DIR/admin-token.
    process.stdout.write(`admin token (kept in ${config.dataDir}/admin-token): ${admin.token}\n`);
  }
  const now = () => Date.now();
  const metrics = createServiceMetrics();
  const db = options.sharedDatabase ?? openSqliteDatabase(config.dataDir);
  // STORE: the registry, shadows and point outbox in that database, or in Cassandra.
  const store = await openStoreBackend(config.store, db).catch((err: unknown) => {
    if (!options.sharedDatabase) db.close();
    throw err;
  });
  const devices = countBackendErrors(store.name, store.devices, metrics);
  const shadows = countBackendErrors(store.name, observeShadowWrites(store.shadows, metrics), metrics);
  // TIMESERIES: the embedded engine (SQLite in DATA_DIR) or KairosDB.
  const timeseries = openTimeSeriesBackend(config, logger);
  const writer = countBackendErrors('timeseries', observePointWriter(timeseries.writer, metrics), metrics);
  const relay = createOutboxRelay(shadows, writer, logger);
  // One bucket per device, shared by its REST Device API calls and its MQTT publishes.
  const rateLimiter = createKeyedRateLimiter({ ratePerSecond: config.rateLimitRps, burst: config.rateLimitBurst });
  const sandbox = createQuickJsSandbox();
  const queries = countBackendErrors('timeseries', timeseries.queries({ writer, sandbox }), metrics);
  // BACKBONE_URL: this node joins others through an MQTT broker (README "Production backends: MQTT backbone").
  const backbone = config.backbone && createMqttBackbone({ ...config.backbone, nodeId: config.nodeId, presence: createPresence(now), logger });
  const presence = backbone ? backbone.presence : createPresence(now);
  // `cluster` is asked for only when a MESSAGE hook runs, once the service is listening.
  const automation = createAutomation({ db, devices, logger, metrics, now, webhooks: config.webhooks, bus: () => cluster.bus });
  presence.observe(automation.runner.statusChanged);
  const shadowService = createShadowService({
    devices,
    shadows,
    relay,
    now,
    schemaFor: automation.schemas.schemaFor,
    quotas: automation.quotas,
    onUpdated: automation.runner.shadowUpdated,
  });
  const publishLimit = createMqttPublishLimit(rateLimiter, metrics, logger);
  const broker = await createAedesBroker({
    devices,
    presence,
    shadowService,
    logger,
    publishLimit,
    relay: backbone?.relay,
    messageQuota: automation.messageQuota,
  });
  const cluster = backbone ? backbone.join(broker) : broker;
  observeAedes(broker.aedes, metrics);
  const mqtt = createTcpServer((socket) => broker.aedes.handle(socket));
  const tlsOptions = config.tls && { cert: config.tls.cert, key: config.tls.key };
  const mqtts = tlsOptions && createTlsServer(tlsOptions, (socket) => broker.aedes.handle(socket));
  const mqttWs = createMqttOverWebSocket(broker.aedes);
  const mqttWsServer = config.mqttWsPort === undefined ? undefined : mqttWs.createDedicatedServer();
  const mqttServers = [mqtt, mqtts].filter((s) => s !== undefined);
  const mqttConnections = mqttServers.map(trackOpenConnections);
  const registry = createRegistry({ devices, sessions: cluster.sessions, now });
  const messaging = createMessagingService({ bus: cluster.bus });
  const userTokens = await createUserTokens(config.userTokenKeyFile);
  const app = createApp({
    logger,
    adminToken: admin.token,
    devices,
    presence,
    registry,
    messaging,
    groupTraffic: createGroupTraffic({ bus: cluster.bus, watch: createAedesMessageWatch(broker.aedes), now }),
    shadowService,
    schemas: automation.schemas,
    quotas: automation.quotas,
    triggers: automation.triggers,
    userTokens,
    queries,
    relay,
    now,
    version: `openpie ${VERSION} (KairosDB 1.2 query API)`,
    metrics,
    metricsToken: config.metricsToken,
    rateLimiter,
    readiness: [
      sqliteReadinessCheck('sqlite', db),
      ...store.readiness,
      timeseries.readiness,
      mqttListenerReadinessCheck(mqtt, broker.aedes),
      ...(backbone ? [backbone.readiness] : []),
      ...(options.readinessChecks ?? []),
    ],
  });

  const http = createHttpServer(app.callback());
  const https = tlsOptions && createHttpsServer(tlsOptions, app.callback());
  mqttWs.serveOn(http);
  if (https) mqttWs.serveOn(https);
  /** Every HTTP server, the dedicated WebSocket one too: idle connections are cut at once, busy ones after the timeout. */
  const webServers = [http, https, mqttWsServer].filter((s) => s !== undefined);
  const coap = createCoapServer({ devices, presence, messaging, shadowService, logger, quotas: automation.quotas });
  let demo: DemoMode | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await demo?.stop();
      // A stopping service fires no more triggers (closing MQTT sessions would look like every device going offline).
      const triggersStopped = automation.runner.close();
      const httpClosed = Promise.all(webServers.map(closeServer));
      for (const server of webServers) server.closeIdleConnections();
      const mqttClosed = Promise.all(mqttServers.map(closeServer));
      const coapClosed = coap.close();
      await broker.close();
      // The broker has closed every MQTT session; a connection that never sent CONNECT has none to close.
      for (const connections of mqttConnections) connections.destroyAll();
      mqttWs.terminateAll();
      await Promise.race([httpClosed, new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
      for (const server of webServers) server.closeAllConnections();
      // After the requests in flight, which may still publish through it.
      await backbone?.close();
      await mqttClosed;
      await coapClosed;
      await relay.close();
      await sandbox.close();
      await triggersStopped;
      await automation.close();
      timeseries.close();
      await store.close();
      if (!options.sharedDatabase) db.close();
    })());

  try {
    const httpPort = await listen(http, config.port, config.host, 'HTTP (PORT)');
    const mqttPort = await listen(mqtt, config.mqttPort, config.mqttHost, 'MQTT (MQTT_PORT)');
    const mqttWsPort = await listenIfSet(mqttWsServer, config.mqttWsPort, config.mqttHost, 'MQTT over WebSocket (MQTT_WS_PORT)');
    const mqttsPort = await listenIfSet(mqtts, config.mqttsPort, config.mqttHost, 'MQTT over TLS (MQTTS_PORT)');
    const httpsPort = await listenIfSet(https, config.httpsPort, config.host, 'HTTPS (HTTPS_PORT)');
    const coapPort = await coap.listen(config.coapPort, config.coapHost).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EADDRINUSE' ? new PortInUseError(`CoAP (COAP_PORT) port ${config.coapPort} on ${config.coapHost} is already in use`) : err;
    });
    // Points queued before a stop or crash go on to the time-series store now.
    void relay.flush();
    logger.info({ httpPort, mqttPort, coapPort, mqttWsPort, mqttsPort, httpsPort, dataDir: config.dataDir }, 'openpie listening');
    if (config.demo) {
      const baseUrl = reachableBaseUrl(config.host, httpPort);
      demo = await startDemo({ registry, shadowService, userTokens, logger, baseUrl, now, print: (text) => process.stdout.write(text) });
    }
    return { httpPort, mqttPort, coapPort, mqttWsPort, mqttsPort, httpsPort, adminToken: admin.token, app, close };
  } catch (err) {
    await close();
    throw err;
  }
}
