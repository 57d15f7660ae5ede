import { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { Server as TcpServer } from 'node:net';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { composeService, ServiceOptions } from './compose/service';
import { Config } from './config/config';
import { trackOpenConnections } from './mqtt/open-connections';

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
  /**
   * Idempotent: stops accepting, lets in-flight requests and publishes finish, closes MQTT connections (publishing the
   * wills they owe), then the backbone and the stores. Each wait is bounded by SHUTDOWN_TIMEOUT_MS.
   */
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

const askToCloseConnection = (_req: IncomingMessage, res: ServerResponse) => res.setHeader('Connection', 'close');

/** Builds the service (compose/service.ts), binds every listener, and owns the order of shutdown. */
export async function startServer(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<RunningServer> {
  const service = await composeService(config, logger, options);
  const { http, https, mqtt, mqtts, mqttWs, coap } = service.listeners;
  /** Every HTTP server, the dedicated WebSocket one too: idle connections are cut at once, busy ones after the timeout. */
  const webServers = [http, https, mqttWs].filter((s) => s !== undefined);
  const mqttServers = [mqtt, mqtts].filter((s) => s !== undefined);
  const mqttConnections = mqttServers.map(trackOpenConnections);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await service.quiesce();
      // A request that still comes on a kept-alive connection is answered with `Connection: close`, so that a client
      // that keeps sending moves to another node instead of holding this one open until the timeout cuts it off.
      for (const server of webServers) server.prependListener('request', askToCloseConnection);
      const httpClosed = Promise.all(webServers.map(closeServer));
      for (const server of webServers) server.closeIdleConnections();
      const mqttClosed = Promise.all(mqttServers.map(closeServer));
      const coapClosed = coap.close();
      // Publishes already read finish (kept, then acknowledged) before their connections close.
      await service.broker.drain(config.shutdownTimeoutMs);
      await service.broker.close();
      // The broker has closed every MQTT session; a connection that never sent CONNECT has none to close.
      for (const connections of mqttConnections) connections.destroyAll();
      service.mqttWs.terminateAll();
      await Promise.race([httpClosed, new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
      for (const server of webServers) server.closeAllConnections();
      await service.closeBackbone();
      await mqttClosed;
      await coapClosed;
      await service.closeBackends();
    })());

  try {
    const httpPort = await listen(http, config.port, config.host, 'HTTP (PORT)');
    const mqttPort = await listen(mqtt, config.mqttPort, config.mqttHost, 'MQTT (MQTT_PORT)');
    const mqttWsPort = await listenIfSet(mqttWs, config.mqttWsPort, config.mqttHost, 'MQTT over WebSocket (MQTT_WS_PORT)');
    const mqttsPort = await listenIfSet(mqtts, config.mqttsPort, config.mqttHost, 'MQTT over TLS (MQTTS_PORT)');
    const httpsPort = await listenIfSet(https, config.httpsPort, config.host, 'HTTPS (HTTPS_PORT)');
    const coapPort = await coap.listen(config.coapPort, config.coapHost).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EADDRINUSE' ? new PortInUseError(`CoAP (COAP_PORT) port ${config.coapPort} on ${config.coapHost} is already in use`) : err;
    });
    logger.info({ httpPort, mqttPort, coapPort, mqttWsPort, mqttsPort, httpsPort, dataDir: config.dataDir }, 'openpie listening');
    const listeners = [
      { name: 'HTTP', port: httpPort },
      { name: 'MQTT over WebSocket (/mqtt)', port: httpPort },
      { name: 'MQTT', port: mqttPort },
      ...(mqttsPort === undefined ? [] : [{ name: 'MQTT over TLS', port: mqttsPort }]),
      ...(httpsPort === undefined ? [] : [{ name: 'HTTPS (and WSS on /mqtt)', port: httpsPort }]),
      ...(mqttWsPort === undefined ? [] : [{ name: 'MQTT over WebSocket (MQTT_WS_PORT)', port: mqttWsPort }]),
      { name: 'CoAP (UDP)', port: coapPort },
    ];
    await service.started({ httpPort, mqttPort, listeners });
    return { httpPort, mqttPort, coapPort, mqttWsPort, mqttsPort, httpsPort, adminToken: service.adminToken, app: service.app, close };
  } catch (err) {
    await close();
    throw err;
  }
}
