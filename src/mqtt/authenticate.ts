import { AuthenticateError } from 'aedes';
import type { Aedes } from 'aedes';
import { AppError } from '../core/errors';
import { authenticateDevice, authenticateDeviceByToken } from '../devices/authenticate';
import { secretsEqual } from '../devices/credentials';
import { assignClientId } from './aedes2-patches';
import { HookContext } from './hook-context';
import { REASON } from './v5/reason-codes';
import { connackReasonFor, isDeviceIdForm, refuseConnect } from './v5/refusals';

/** CONNACK 5, "not authorized" [MQTT-3.2.2-3]: what NETPIE answers for every refused key (netpie reference §3.1). */
const NOT_AUTHORIZED = 5;
/** CONNACK 2, "identifier rejected": an MQTT 3.1 CONNECT without a ClientID (3.1 wants 1 to 23 characters). */
const IDENTIFIER_REJECTED = 2;
/** The protocol level of MQTT 3.1 (`MQIsdp`). */
const MQTT_3_1 = 3;
/** CONNACK 3, "server unavailable": the project's messages quota is spent, or the registry cannot answer. */
const SERVER_UNAVAILABLE = 3;

/**
 * CONNECT: ClientID = deviceid, username = token, password = secret or empty. The accepted device becomes the
 * connection's scope; the project's messages quota is charged for the connection. MQTT 5 clients hear why they are
 * refused: a reason code of their own (v5/refusals.ts) and the reason as Reason String.
 *
 * An empty ClientID is served (issue 17): the token names the device, whose id becomes the ClientID before aedes
 * reads the session, so the connection is the device's as if it had sent its id ([MQTT-3.1.3-6]; MQTT 5 hears the id
 * as Assigned Client Identifier [MQTT-3.2.2-16]). aedes itself refuses MQTT 3.1.1 with CleanSession 0 [MQTT-3.1.3-8];
 * MQTT 5 Clean Start 0 resumes the device's stored session, as the id would.
 */
export function authenticateHook(ctx: HookContext): Aedes['authenticate'] {
  const { devices, logger, messageQuota, scopes, withoutClientId } = ctx;
  return (client, username, password, done) => {
    const refuse = (why: string, returnCode = NOT_AUTHORIZED, reasonCode: number = REASON.NOT_AUTHORIZED) => {
      logger.info({ deviceid: client.id, why }, 'mqtt connection refused');
      if (client.version === 5) return refuseConnect(client, reasonCode, why, done);
      const err = new Error(why) as AuthenticateError;
      err.returnCode = returnCode;
      done(err, false);
    };
    const withoutId = withoutClientId.has(client);
    if (withoutId && client.version === MQTT_3_1) return refuse('MQTT 3.1 needs a ClientID', IDENTIFIER_REJECTED);
    // MQTT 5: a ClientID that cannot be a device id is 0x85; MQTT 3.1.1 keeps NETPIE's one answer, 5.
    if (!withoutId && client.version === 5 && !isDeviceIdForm(client.id)) {
      return refuse('the ClientID must be a device id', NOT_AUTHORIZED, REASON.CLIENT_IDENTIFIER_NOT_VALID);
    }
    const authenticated = withoutId
      ? authenticateDeviceByToken(devices, username ?? '')
      : authenticateDevice(devices, client.id, username ?? '');
    authenticated.then(
      (device) => {
        const given = password?.toString() ?? '';
        if (given !== '' && !secretsEqual(given, device.secret)) return refuse('wrong secret', NOT_AUTHORIZED, REASON.BAD_USERNAME_OR_PASSWORD);
        // Before aedes reads the session and registers the client (lib/handlers/connect.js: authenticate runs first).
        if (withoutId) assignClientId(client, device.deviceid);
        const accept = () => {
          scopes.set(client, device);
          done(null, true);
        };
        if (!messageQuota) return accept();
        messageQuota.connect(device).then(
          (refusal) => (refusal ? refuse(refusal.message, SERVER_UNAVAILABLE, REASON.QUOTA_EXCEEDED) : accept()),
          () => refuse('the quota store is unavailable; try again later', NOT_AUTHORIZED, REASON.SERVER_UNAVAILABLE),
        );
      },
      // A refused device (unknown, wrong token, disabled) is not authorized; a registry that cannot answer (Cassandra
      // unreachable) is return code 3, "Server unavailable" (MQTT 3.1.1 §3.2.2.3), so the client retries later.
      (err: unknown) => {
        if (err instanceof AppError && err.status < 500) return refuse(err.message, NOT_AUTHORIZED, connackReasonFor(err.code));
        // The details of a 5xx stay in the log (core/errors.ts, `expose`); the device hears only that it may retry.
        logger.warn({ deviceid: client.id, err }, 'mqtt connection refused: the device registry did not answer');
        refuse('the device registry is unavailable; try again later', SERVER_UNAVAILABLE, REASON.SERVER_UNAVAILABLE);
      },
    );
  };
}
