import type { Aedes } from 'aedes';
import { externalTopic, internalFilter } from '../messaging/topics';
import { createFlowChannel } from './flow-channel/flow-channel';
import { HookContext } from './hook-context';
import { REASON } from './v5/reason-codes';
import { refuseSubscription } from './v5/suback';

/**
 * SUBSCRIBE: a refused filter gets SUBACK 0x80 and the connection stays up [MQTT-3.9.3-2] (MQTT 5: 0x87, or 0x97 for
 * a spent quota, with the reason: v5/suback.ts). The filter is rewritten in place: aedes then looks up retained
 * messages and stores persistent subscriptions under the internal topic.
 * A persistent session's restored subscriptions arrive here already internal, and stay in the device's scope.
 */
export function authorizeSubscribeHook(ctx: HookContext): Aedes['authorizeSubscribe'] {
  const { scopes, logger, admission, apps } = ctx;
  const flow = createFlowChannel(ctx);
  return (client, sub, done) => {
    const conn = apps.get(client);
    if (conn) return flow.subscribe(conn, sub, done);
    const scope = scopes.get(client);
    const internal = scope && internalFilter(scope, externalTopic(scope, sub.topic) ?? sub.topic);
    if (internal === undefined) {
      logger.info({ deviceid: client.id, topic: sub.topic }, 'mqtt subscription refused');
      refuseSubscription(sub, REASON.NOT_AUTHORIZED, 'devices may subscribe to @msg/..., @private/..., @shadow/data/updated and @shadow/desired/delta only');
      return done(null, null);
    }
    if (scope && admission.subscribe(scope)) {
      logger.info({ deviceid: client.id, topic: sub.topic }, 'mqtt subscription refused: messages quota spent');
      refuseSubscription(sub, REASON.QUOTA_EXCEEDED, 'the messages quota of the project is spent');
      return done(null, null);
    }
    sub.topic = internal;
    done(null, sub);
  };
}
