import { randomUUID } from 'node:crypto';
import { createSocket, Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { IncomingMessage, OutgoingMessage } from 'coap';
import type { Logger } from 'pino';
import { authenticateDevice } from '../devices/authenticate';
import { DeviceStore } from '../devices/port';
import { Presence } from '../devices/presence';
import { CoapUploadLimits } from '../config/limits-config';
import { AppError, errorBodyOf } from '../core/errors';
import { MessagingService } from '../messaging/service';
import { QuotaGate } from '../quotas/port';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { coapCodeOf } from './codes';
import { coapDeviceRoutes } from './device-routes';
import { GuardedCoapServer, KeptReply } from './guarded-server';
import { CoapReply, credentialsOf, handlerOf, matchRoute, parseQuery, requestTarget } from './routes';

export interface CoapServerDeps {
  devices: DeviceStore;
  presence: Presence;
  messaging: MessagingService;
  shadowService: ShadowService;
  push: PushService;
  logger: Logger;
  /** The API-call quota (issue 5 §5); none when absent. */
  quotas?: QuotaGate;
  /** Caps on unfinished block-wise uploads (issue 10, COAP_UPLOAD_*); the defaults when absent. */
  uploads?: CoapUploadLimits;
}

export interface CoapServer {
  /** Binds the UDP socket; resolves with the port (useful with port 0). Rejects with the socket's error (EADDRINUSE). */
  listen(port: number, host: string): Promise<number>;
  /** Idempotent: refuses new requests with 5.03, lets the ones under way answer, then closes the socket. */
  close(): Promise<void>;
}

interface RequestLog {
  requestId: string;
  method: string | undefined;
  path: string;
}

interface Outcome extends KeptReply {
  /** Size1 of a 4.13: the largest payload the path takes (RFC 7959 §4). */
  size1?: number;
}

/** The CoAP device API (issue 5 §2, netpie reference §4) over UDP, served by node-coap. */
export function createCoapServer(deps: CoapServerDeps): CoapServer {
  const { devices, presence, logger } = deps;
  const routes = coapDeviceRoutes(deps);
  const largest = Math.max(...routes.map((r) => r.maxPayloadBytes));
  const server = new GuardedCoapServer({
    // Unknown paths get the largest limit: they are refused with 4.04 once the upload is whole.
    uploadLimit: (segments) => matchRoute(routes, segments)?.route.maxPayloadBytes ?? largest,
    onBrokenRequest: (reason, rsinfo, requestId) =>
      logger.info({ requestId, reason, from: rsinfo.address }, 'coap request refused by node-coap'),
    uploads: deps.uploads,
  });
  const underWay = new Set<Promise<void>>();
  let socket: Socket | undefined;
  let closing: Promise<void> | undefined;

  /** Route and method, credentials, payload size, then the route's handler: the order of REST's checks. */
  async function answer(req: IncomingMessage, segments: string[], queries: string[]): Promise<CoapReply> {
    if (closing) throw new AppError('SHUTTING_DOWN', 'the service is stopping');
    const match = matchRoute(routes, segments);
    if (!match) throw new AppError('ROUTE_NOT_FOUND', `no route for ${req.method ?? req.code} /${segments.join('/')}`);
    const handler = handlerOf(match.route, req.method);
    const query = parseQuery(queries);
    const { deviceid, token } = credentialsOf(query);
    const caller = await authenticateDevice(devices, deviceid, token);
    presence.touched(caller.deviceid);
    const cutShort = server.exceededLimit(req);
    const limit = cutShort ?? match.route.maxPayloadBytes;
    if (cutShort !== undefined || req.payload.length > limit) {
      throw new AppError('PAYLOAD_TOO_LARGE', `body is larger than ${limit} bytes`);
    }
    const contentFormat = req.headers['Content-Format'];
    return handler({
      caller,
      rest: match.rest,
      query,
      payload: req.payload,
      contentFormat: typeof contentFormat === 'string' || typeof contentFormat === 'number' ? contentFormat : undefined,
    });
  }

  /** Size1 of a 4.13 (RFC 7959 §4): the limit the upload went past. */
  const uploadLimitOf = (req: IncomingMessage, segments: string[]) =>
    server.exceededLimit(req) ?? matchRoute(routes, segments)?.route.maxPayloadBytes ?? largest;

  /** The reply to a request, errors included. */
  async function outcomeOf(req: IncomingMessage, segments: string[], queries: string[], log: RequestLog): Promise<Outcome> {
    try {
      const reply = await answer(req, segments, queries);
      return { code: reply.code, payload: Buffer.from(JSON.stringify(reply.body)) };
    } catch (err) {
      const body = errorBodyOf(err, (internal) => logger.error({ err: internal, ...log }, 'coap request failed'));
      const size1 = body.code === 'PAYLOAD_TOO_LARGE' ? uploadLimitOf(req, segments) : undefined;
      // Error bodies carry a request id, as on REST, to find the request's log line.
      const payload = Buffer.from(JSON.stringify({ ...body, requestId: log.requestId }));
      return { code: coapCodeOf(body.status), payload, size1 };
    }
  }

  async function serve(req: IncomingMessage, res: OutgoingMessage): Promise<void> {
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    // A confirmable reply nobody acknowledges ends in an 'error' event; unheard, it would throw.
    res.on('error', (err: Error) => logger.debug({ err, requestId }, 'coap reply not delivered'));
    const { segments, queries } = requestTarget(req._packet.options ?? []);
    // Logged without the query: it holds the device's token.
    const log: RequestLog = { requestId, method: req.method, path: `/${segments.join('/')}` };
    const outcome: Outcome = server.keptReplyFor(req) ?? (await outcomeOf(req, segments, queries, log));
    server.keepReply(req, outcome);
    try {
      res.code = outcome.code;
      res.setOption('Content-Format', 'application/json');
      if (outcome.size1 !== undefined) res.setOption('Size1', outcome.size1);
      res.end(outcome.payload);
    } catch (err) {
      logger.debug({ err, requestId }, 'coap reply not sent');
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.debug({ ...log, code: outcome.code, ms }, 'coap request');
  }

  server.on('request', (req: IncomingMessage, res: OutgoingMessage) => {
    const done: Promise<void> = serve(req, res).finally(() => underWay.delete(done));
    underWay.add(done);
  });
  server.on('error', (err: Error) => logger.error({ err }, 'coap socket error'));

  return {
    async listen(port, host) {
      // Bound here rather than by node-coap, which sets SO_REUSEADDR: a second service on the same port must fail to
      // start, not share the port and receive part of the traffic.
      const bound = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4' });
      await new Promise<void>((resolve, reject) => {
        const refused = (err: Error) => {
          bound.close();
          reject(err);
        };
        bound.once('error', refused);
        bound.bind(port, host, () => {
          bound.off('error', refused);
          resolve();
        });
      });
      socket = bound;
      server.listen(bound);
      return bound.address().port;
    },

    close() {
      return (closing ??= (async () => {
        await Promise.allSettled([...underWay]);
        server.close();
        if (socket) await new Promise<void>((resolve) => socket!.close(() => resolve()));
      })());
    },
  };
}
