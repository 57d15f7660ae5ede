import { mkdirSync } from 'node:fs';
import { createServer as createHttpServer, Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, Server as TcpServer } from 'node:net';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { createAedesBroker } from './adapters/aedes-broker';
import { createCoapServer } from './adapters/coap-server';
import { openSqliteDatabase } from './adapters/sqlite-database';
import { createSqliteDeviceStore } from './adapters/sqlite-device-store';
import { mqttListenerReadinessCheck } from './adapters/mqtt-listener-readiness';
import { sqliteReadinessCheck } from './adapters/sqlite-readiness';
import { createSqliteShadowStore } from './adapters/sqlite-shadow-store';
import { createSqliteTimeSeriesStore } from './adapters/sqlite-timeseries-store';
import { resolveAdminToken } from './admin-token';
import { version as VERSION } from '../package.json';
import { createApp } from './app';
import { Config } from './config';
import { DemoMode, reachableBaseUrl, startDemo } from './demo/demo-mode';
import { createPresence } from './devices/presence';
import { createRegistry } from './devices/service';
import { ReadinessCheck } from './health/port';
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
import { createUserTokens } from './tokens/user-tokens';

export interface RunningServer {
  httpPort: number;
  mqttPort: number;
  coapPort: number;
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

const closeServer = (server: HttpServer | TcpServer) =>
  new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

/** What the composition takes besides the configuration. */
export interface ServerOptions {
  /** Checked by /readyz after the built-in ones (backends added by later issues; tests inject faults here). */
  readinessChecks?: readonly ReadinessCheck[];
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
  const db = openSqliteDatabase(config.dataDir);
  const devices = countBackendErrors('sqlite', createSqliteDeviceStore(db), metrics);
  const shadows = countBackendErrors('sqlite', observeShadowWrites(createSqliteShadowStore(db), metrics), metrics);
  const timeseries = createSqliteTimeSeriesStore(config.dataDir);
  const writer = countBackendErrors('timeseries', observePointWriter(timeseries.writer, metrics), metrics);
  const source = countBackendErrors('timeseries', timeseries.source, metrics);
  const relay = createOutboxRelay(shadows, writer, logger);
  // One bucket per device, shared by its REST Device API calls and its MQTT publishes.
  const rateLimiter = createKeyedRateLimiter({ ratePerSecond: config.rateLimitRps, burst: config.rateLimitBurst });
  const sandbox = createQuickJsSandbox();
  const presence = createPresence(now);
  const shadowService = createShadowService({ devices, shadows, relay, now });
  const publishLimit = createMqttPublishLimit(rateLimiter, metrics, logger);
  const broker = await createAedesBroker({ devices, presence, shadowService, logger, publishLimit });
  observeAedes(broker.aedes, metrics);
  const mqtt = createTcpServer((socket) => broker.aedes.handle(socket));
  const registry = createRegistry({ devices, sessions: broker.sessions, now });
  const messaging = createMessagingService({ bus: broker.bus });
  const userTokens = await createUserTokens(config.dataDir);
  const app = createApp({
    logger,
    adminToken: admin.token,
    devices,
    presence,
    registry,
    messaging,
    shadowService,
    userTokens,
    source,
    writer,
    sandbox,
    relay,
    now,
    version: `openpie ${VERSION} (KairosDB 1.2 query API)`,
    metrics,
    metricsToken: config.metricsToken,
    rateLimiter,
    readiness: [
      sqliteReadinessCheck('sqlite', db),
      timeseries.readiness,
      mqttListenerReadinessCheck(mqtt, broker.aedes),
      ...(options.readinessChecks ?? []),
    ],
  });

  const http = createHttpServer(app.callback());
  const coap = createCoapServer({ devices, presence, messaging, shadowService, logger });
  let demo: DemoMode | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await demo?.stop();
      const httpClosed = closeServer(http);
      http.closeIdleConnections();
      const mqttClosed = closeServer(mqtt);
      const coapClosed = coap.close();
      await broker.close();
      await Promise.race([httpClosed, new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
      http.closeAllConnections();
      await mqttClosed;
      await coapClosed;
      await relay.close();
      await sandbox.close();
      timeseries.close();
      db.close();
    })());

  try {
    const httpPort = await listen(http, config.port, config.host, 'HTTP (PORT)');
    const mqttPort = await listen(mqtt, config.mqttPort, config.mqttHost, 'MQTT (MQTT_PORT)');
    const coapPort = await coap.listen(config.coapPort, config.coapHost).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EADDRINUSE' ? new PortInUseError(`CoAP (COAP_PORT) port ${config.coapPort} on ${config.coapHost} is already in use`) : err;
    });
    // Points queued before a stop or crash go on to the time-series store now.
    void relay.flush();
    logger.info({ httpPort, mqttPort, coapPort, dataDir: config.dataDir }, 'openpie listening');
    if (config.demo) {
      const baseUrl = reachableBaseUrl(config.host, httpPort);
      demo = await startDemo({ registry, shadowService, userTokens, logger, baseUrl, now, print: (text) => process.stdout.write(text) });
    }
    return { httpPort, mqttPort, coapPort, adminToken: admin.token, app, close };
  } catch (err) {
    await close();
    throw err;
  }
}
