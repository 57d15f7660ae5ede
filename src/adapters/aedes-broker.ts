import { Aedes, AuthenticateError, Client } from 'aedes';
import type { Logger } from 'pino';
import { authenticateDevice } from '../devices/authenticate';
import { secretsEqual } from '../devices/credentials';
import { DeviceStore, SessionControl } from '../devices/port';
import { Presence } from '../devices/presence';
import { AppError } from '../errors';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { MessageBus } from '../messaging/port';
import { deviceTopic, externalTopic, internalTopic, MSG, Scope, topicProblem } from '../messaging/topics';

export interface AedesBrokerDeps {
  devices: DeviceStore;
  presence: Presence;
  logger: Logger;
}

export interface AedesBroker {
  aedes: Aedes;
  bus: MessageBus;
  sessions: SessionControl;
  close(): Promise<void>;
}

/** CONNACK 5, "not authorized" [MQTT-3.2.2-3]: what NETPIE answers for every refused key (netpie reference §3.1). */
const NOT_AUTHORIZED = 5;

/**
 * The device-facing broker (issue 2, section 4). Devices connect with ClientID = deviceid, username = token and
 * password = secret or empty. Every topic and filter is rewritten into the device's scope on the way in and back on
 * the way out (see messaging/topics.ts), so groups and private channels stay apart.
 */
export async function createAedesBroker({ devices, presence, logger }: AedesBrokerDeps): Promise<AedesBroker> {
  const scopes = new WeakMap<Client, Scope>();

  const aedes = await Aedes.createBroker({
    // A second connection with the same ClientID takes over and the first is closed [MQTT-3.1.4-2]; aedes does it.
    preConnect(client, _packet, done) {
      rewriteUnsubscribes(client, scopes);
      done(null, true);
    },

    authenticate(client, username, password, done) {
      const refuse = (why: string) => {
        logger.info({ deviceid: client.id, why }, 'mqtt connection refused');
        const err = new Error(why) as AuthenticateError;
        err.returnCode = NOT_AUTHORIZED;
        done(err, false);
      };
      authenticateDevice(devices, client.id, username ?? '').then(
        (device) => {
          const given = password?.toString() ?? '';
          if (given !== '' && !secretsEqual(given, device.secret)) return refuse('wrong secret');
          scopes.set(client, { deviceid: device.deviceid, projectid: device.projectid, groupid: device.groupid });
          done(null, true);
        },
        (err: unknown) => refuse(err instanceof AppError ? err.code : 'store unavailable'),
      );
    },

    // Refusing a PUBLISH closes the connection: MQTT 3.1.1 has no negative acknowledgement [MQTT-3.3.5-2].
    authorizePublish(client, packet, done) {
      const scope = client && scopes.get(client);
      if (!scope) return done(new Error('not authenticated'));
      const parsed = deviceTopic(packet.topic);
      const problem =
        parsed?.family !== MSG
          ? `devices may publish only to ${MSG}/...`
          : (topicProblem(parsed.rest, false) ??
            (packet.payload.length > MESSAGE_LIMITS.maxPayloadBytes ? 'payload too large' : undefined));
      if (problem || !parsed) {
        logger.info({ deviceid: scope.deviceid, topic: packet.topic, why: problem }, 'mqtt publish refused');
        return done(new Error(problem));
      }
      packet.topic = internalTopic(scope, parsed.family, parsed.rest);
      done(null);
    },

    // A refused filter gets SUBACK 0x80 and the connection stays up [MQTT-3.9.3-2].
    authorizeSubscribe(client, sub, done) {
      const scope = scopes.get(client);
      const parsed = deviceTopic(sub.topic);
      if (!scope || !parsed || topicProblem(parsed.rest, true)) {
        logger.info({ deviceid: client.id, topic: sub.topic }, 'mqtt subscription refused');
        return done(null, null);
      }
      done(null, { ...sub, topic: internalTopic(scope, parsed.family, parsed.rest) });
    },

    authorizeForward(client, packet) {
      const scope = scopes.get(client);
      const topic = scope && externalTopic(scope, packet.topic);
      return topic === undefined ? null : { ...packet, topic };
    },
  });

  aedes.on('clientReady', (client) => {
    presence.connected(client.id);
    logger.debug({ deviceid: client.id }, 'mqtt client connected');
  });
  aedes.on('clientDisconnect', (client) => {
    presence.disconnected(client.id);
    logger.debug({ deviceid: client.id }, 'mqtt client disconnected');
  });
  aedes.on('clientError', (client, err) => logger.debug({ deviceid: client.id, err: err.message }, 'mqtt client error'));

  const clients = () => (aedes as unknown as { clients: Record<string, Client | undefined> }).clients;

  return {
    aedes,
    bus: {
      publish: (topic, payload) =>
        new Promise((resolve, reject) =>
          aedes.publish({ cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false }, (err) =>
            err ? reject(err) : resolve(),
          ),
        ),
    },
    sessions: {
      disconnectDevice(deviceid, reason) {
        const client = clients()[deviceid];
        if (!client) return;
        logger.info({ deviceid, reason }, 'mqtt session closed by the service');
        client.close();
      },
    },
    close: () => new Promise<void>((resolve) => aedes.close(() => resolve())),
  };
}

/**
 * aedes has no hook for UNSUBSCRIBE, and stores subscriptions under the rewritten topics; so the filters of an
 * UNSUBSCRIBE are rewritten the same way before aedes handles the packet. Relies on the client's packet parser
 * (aedes 1.x `client._parser`), pinned by the lockfile and covered by the unsubscribe test.
 */
function rewriteUnsubscribes(client: Client, scopes: WeakMap<Client, Scope>): void {
  const parser = (client as unknown as { _parser: NodeJS.EventEmitter })._parser;
  parser.prependListener('packet', (packet: { cmd: string; unsubscriptions?: string[] }) => {
    const scope = scopes.get(client);
    if (packet.cmd !== 'unsubscribe' || !scope || !packet.unsubscriptions) return;
    packet.unsubscriptions = packet.unsubscriptions.map((filter) => {
      const parsed = deviceTopic(filter);
      return parsed ? internalTopic(scope, parsed.family, parsed.rest) : filter;
    });
  });
}
