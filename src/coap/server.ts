import { randomUUID } from 'node:crypto';
import { createSocket, Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { IncomingMessage, OutgoingMessage } from 'coap';
import type { Logger } from 'pino';
import { Admission } from '../devices/admission';
import { AppError, errorBodyOf } from '../core/errors';
import { MessagingService } from '../messaging/service';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { coapCodeOf } from './codes';
import { coapDeviceRoutes } from './device-routes';
import { coapDesiredRoutes } from './desired-routes';
import { DesiredService } from '../desired/service';
import { GuardedCoapServer, KeptReply, setKeptEtag } from './guarded-server';
import { CoapReply, credentialsOf, handlerOf, matchRoute, parseQuery, requestTarget } from './routes';
import { coapRevConditionOf } from './shadow-conditions';
import { CoapUploadLimits } from './unfinished-uploads';

export interface CoapServerDeps {
  /** The one way in for devices, as REST's (devices/admission.ts): credentials, rate limit, API-call quota. */
  admission: Admission;
  messaging: MessagingService;
  shadowService: ShadowService;
  /** Desired state (issue 25 §2): /shadow/desired; absent in some tests. */
  desired?: DesiredService;
  push: PushService;
  logger: Logger;
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
  /** Max-Age of a 4.29: seconds before the client may try again (RFC 8516 §4). */
  maxAge?: number;
  /** ETag of a shadow reply: its revision. */
  etag?: Buffer;
}

/** The CoAP device API (issue 5 §2, netpie reference §4) over UDP, served by node-coap. */
export function createCoapServer(deps: CoapServerDeps): CoapServer {
  const { admission, logger } = deps;
  const routes = [...coapDeviceRoutes(deps), ...(deps.desired ? coapDesiredRoutes(deps.desired) : [])];
  const largest = Math.max(...routes.map((r) => r.maxPayloadBytes));
  const server = new GuardedCoapServer({
    // Unknown paths get the largest limit: they are refused with 4.04 once the upload is whole.
    uploadLimit: (segments) => matchRoute(routes, segments)?.route.maxPayloadBytes ?? largest,
    onBrokenRequest: (reason, rsinfo, requestId) =>
      logger.info({ requestId, reason, from: rsinfo.address }, 'coap request refused by node-coap'),
    uploads: deps.uploads,
    // Admission's own credential check (with its guessing limits) on the first block's ?auth=; the rate limit and
    // presence wait for the whole request, so that an upload counts as one call.
    admitUpload: async (packet, rsinfo) => {
      await admission.authenticate('coap', rsinfo.address, credentialsOf(parseQuery(requestTarget(packet.options ?? []).queries)));
    },
    refusalOf: (err) => {
      const body = errorBodyOf(err, (internal) => logger.error({ err: internal }, 'coap upload check failed'));
      const error = err instanceof AppError ? err : new AppError('INTERNAL', body.message);
      const retryAfter = error.extra.retryAfter;
      return { code: coapCodeOf(body.status), error, maxAgeSeconds: typeof retryAfter === 'number' ? retryAfter : undefined };
    },
  });
  const underWay = new Set<Promise<void>>();
  let socket: Socket | undefined;
  let closing: Promise<void> | undefined;

  /**
   * Route and method, payload size, admission, then the route's handler, metered. The size comes before the
   * credentials, unlike REST's order: a block past the limit has ended the upload already (guarded-server.ts), and
   * docs/coap.md promises 4.13 for it whoever sends it; the limits are public, so the answer tells nothing.
   */
  async function answer(req: IncomingMessage, segments: string[], queries: string[]): Promise<CoapReply> {
    if (closing) throw new AppError('SHUTTING_DOWN', 'the service is stopping');
    const match = matchRoute(routes, segments);
    if (!match) throw new AppError('ROUTE_NOT_FOUND', `no route for ${req.method ?? req.code} /${segments.join('/')}`);
    const handler = handlerOf(match.route, req.method);
    const cutShort = server.exceededLimit(req);
    const limit = cutShort ?? match.route.maxPayloadBytes;
    if (cutShort !== undefined || req.payload.length > limit) {
      throw new AppError('PAYLOAD_TOO_LARGE', `body is larger than ${limit} bytes`);
    }
    const query = parseQuery(queries);
    const caller = await admission.call('coap', req.rsinfo.address, credentialsOf(query));
    const contentFormat = req.headers['Content-Format'];
    let reply: CoapReply | undefined;
    const serve = async () =>
      (reply = await handler({
        caller,
        rest: match.rest,
        query,
        payload: req.payload,
        contentFormat: typeof contentFormat === 'string' || typeof contentFormat === 'number' ? contentFormat : undefined,
        revCondition: coapRevConditionOf(req._packet.options ?? []),
      }));
    const replyBytes = () => (reply ? Buffer.byteLength(JSON.stringify(reply.body)) : 0);
    return admission.metered(caller, req.payload.length, serve, replyBytes);
  }

  /** Size1 of a 4.13 (RFC 7959 §4): the limit the upload went past. */
  const uploadLimitOf = (req: IncomingMessage, segments: string[]) =>
    server.exceededLimit(req) ?? matchRoute(routes, segments)?.route.maxPayloadBytes ?? largest;

  /** The reply to a request, errors included. */
  async function outcomeOf(req: IncomingMessage, segments: string[], queries: string[], log: RequestLog): Promise<Outcome> {
    try {
      const reply = await answer(req, segments, queries);
      return { code: reply.code, payload: Buffer.from(JSON.stringify(reply.body)), etag: reply.etag };
    } catch (err) {
      const body = errorBodyOf(err, (internal) => logger.error({ err: internal, ...log }, 'coap request failed'));
      const size1 = body.code === 'PAYLOAD_TOO_LARGE' ? uploadLimitOf(req, segments) : undefined;
      const maxAge = err instanceof AppError && typeof err.extra.retryAfter === 'number' ? err.extra.retryAfter : undefined;
      // Error bodies carry a request id, as on REST, to find the request's log line.
      const payload = Buffer.from(JSON.stringify({ ...body, requestId: log.requestId }));
      return { code: coapCodeOf(body.status), payload, size1, maxAge };
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
      if (outcome.maxAge !== undefined) res.setOption('Max-Age', outcome.maxAge);
      if (outcome.etag !== undefined) setKeptEtag(res, outcome.etag);
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
