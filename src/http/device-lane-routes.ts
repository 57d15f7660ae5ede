import type { IncomingMessage } from 'node:http';
import type { ParsedUrlQuery } from 'node:querystring';
import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { Presence } from '../devices/presence';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { publishOptionsOf } from '../messaging/publish-options';
import { MessagingService } from '../messaging/service';
import { readMessage } from './body';
import { messagePropertiesOfRequest } from './message-headers';
import { singleValue } from './query';

export interface LaneRoutesDeps {
  presence: Presence;
  messaging: MessagingService;
}

/** What a lane route is given: the caller, admitted, and the request. */
export interface LaneCall {
  caller: Device;
  req: IncomingMessage;
  /** The query string, parsed as Koa's `ctx.query` is. */
  query: ParsedUrlQuery;
  /** The topic named in the path, its segments decoded (`/message/{topic...}`); undefined when the path names none. */
  pathTopic?: string;
  /** The body's deadline (body-deadline.ts), when the body is still arriving. */
  bodyDeadline?: Promise<never>;
}

/** The lane's routes (device-lane.ts) by their path under the prefix: methods, and whether a topic may follow. */
export const LANE_PATHS = {
  status: { methods: ['HEAD', 'GET'], topic: false },
  message: { methods: ['PUT'], topic: true },
  private: { methods: ['PUT'], topic: true },
} as const;

/** A route of the lane: its shape (LANE_PATHS) and what it answers (a JSON body, 200). */
export interface LaneRoute {
  methods: readonly string[];
  /** True when the path may go on with a topic (`/message/{topic...}`). */
  topic: boolean;
  serve(call: LaneCall): Promise<unknown>;
}

/** The topic of `/message/{any}/{topic}` or of `/message?topic=` (spec 4.2, 4.3), exactly one of them. */
function topicOf(call: LaneCall): string {
  const inQuery = singleValue(call.query, 'topic');
  if (call.pathTopic !== undefined && inQuery !== undefined) {
    throw new AppError('INVALID_TOPIC', 'give the topic in the path or in ?topic=, not both');
  }
  const topic = call.pathTopic ?? inQuery;
  if (topic === undefined) throw new AppError('INVALID_TOPIC', 'no topic: use /message/{any}/{topic} or ?topic=');
  return topic;
}

/** Device status (spec 4.1) and publishing (spec 4.2, 4.3), by the first segment after the prefix. */
export function laneRoutes({ presence, messaging }: LaneRoutesDeps): Map<string, LaneRoute> {
  const status: LaneRoute = {
    ...LANE_PATHS.status,
    // The one body whose `status` is not the HTTP code: spec 2.1 and 4.1 make it the connection state (1/0), and
    // NETPIE clients read it so (netpie reference §5.2).
    serve: async ({ caller: d }) => ({
      deviceid: d.deviceid,
      alias: d.alias,
      groupid: d.groupid,
      projectid: d.projectid,
      status: presence.statusOf(d),
      enabled: d.enabled,
      banned: d.banned,
    }),
  };
  const publish = (kind: 'message' | 'private'): LaneRoute => ({
    ...LANE_PATHS[kind],
    async serve(call) {
      const topic = topicOf(call);
      const options = publishOptionsOf(singleValue(call.query, 'qos'), singleValue(call.query, 'retain'));
      const payload = await readMessage(call.req, MESSAGE_LIMITS.maxPayloadBytes, call.bodyDeadline);
      const properties = messagePropertiesOfRequest(call.req, payload);
      const published = kind === 'message'
        ? await messaging.publishMessage(call.caller, topic, payload, { ...options, properties })
        : await messaging.publishPrivate(call.caller, topic, payload, { ...options, properties });
      return { status: 200, message: `published to ${published}` };
    },
  });
  return new Map([
    ['status', status],
    ['message', publish('message')],
    ['private', publish('private')],
  ]);
}
