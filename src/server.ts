import { mkdirSync } from 'node:fs';
import { createServer as createHttpServer, Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, Server as TcpServer } from 'node:net';
import type { Logger } from 'pino';
import { createAedesBroker } from './adapters/aedes-broker';
import { openSqliteDatabase } from './adapters/sqlite-database';
import { createSqliteDeviceStore } from './adapters/sqlite-device-store';
import { createSqliteShadowStore } from './adapters/sqlite-shadow-store';
import { createSqliteTimeSeriesStore } from './adapters/sqlite-timeseries-store';
import { resolveAdminToken } from './admin-token';
import { version as VERSION } from '../package.json';
import { createApp } from './app';
import { Config } from './config';
import { createPresence } from './devices/presence';
import { createRegistry } from './devices/service';
import { createMessagingService } from './messaging/service';
import { createShadowService } from './shadows/service';
import { createOutboxRelay } from './timeseries/outbox-relay';
import { createQuickJsSandbox } from './timeseries/sandbox/quickjs-sandbox';
import { createUserTokens } from './tokens/user-tokens';

export interface RunningServer {
  httpPort: number;
  mqttPort: number;
  adminToken: string;
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

/** Composition: config -> adapters -> services -> HTTP app and MQTT broker, listening. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const admin = resolveAdminToken(config.adminToken, config.dataDir);
  if (admin.created) {
    // Printed once, on the start that made it; it stays in DATA_DIR/admin-token.
    process.stdout.write(`admin token (kept in ${config.dataDir}/admin-token): ${admin.token}\n`);
  }
  const now = () => Date.now();
  const db = openSqliteDatabase(config.dataDir);
  const devices = createSqliteDeviceStore(db);
  const shadows = createSqliteShadowStore(db);
  const timeseries = createSqliteTimeSeriesStore(config.dataDir);
  const relay = createOutboxRelay(shadows, timeseries.writer, logger);
  const sandbox = createQuickJsSandbox();
  const presence = createPresence(now);
  const broker = await createAedesBroker({ devices, presence, logger });
  const registry = createRegistry({ devices, sessions: broker.sessions, now });
  const app = createApp({
    logger,
    adminToken: admin.token,
    devices,
    presence,
    registry,
    messaging: createMessagingService({ bus: broker.bus }),
    shadowService: createShadowService({ devices, shadows, relay, now }),
    userTokens: await createUserTokens(config.dataDir),
    source: timeseries.source,
    writer: timeseries.writer,
    sandbox,
    relay,
    now,
    version: `openpie ${VERSION} (KairosDB 1.2 query API)`,
  });

  const http = createHttpServer(app.callback());
  const mqtt = createTcpServer((socket) => broker.aedes.handle(socket));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const httpClosed = closeServer(http);
      http.closeIdleConnections();
      const mqttClosed = closeServer(mqtt);
      await broker.close();
      await Promise.race([httpClosed, new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
      http.closeAllConnections();
      await mqttClosed;
      await relay.close();
      await sandbox.close();
      timeseries.close();
      db.close();
    })());

  try {
    const httpPort = await listen(http, config.port, config.host, 'HTTP (PORT)');
    const mqttPort = await listen(mqtt, config.mqttPort, config.mqttHost, 'MQTT (MQTT_PORT)');
    // Points queued before a stop or crash go on to the time-series store now.
    void relay.flush();
    logger.info({ httpPort, mqttPort, dataDir: config.dataDir }, 'openpie listening');
    return { httpPort, mqttPort, adminToken: admin.token, close };
  } catch (err) {
    await close();
    throw err;
  }
}
