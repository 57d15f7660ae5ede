import { AuthenticateError } from 'aedes';
import type { Aedes, Client } from 'aedes';
import { AppError } from '../core/errors';
import { assignClientId, forgetCredentials } from './aedes2-patches';
import { sourceOf } from './connection-source';
import { isApplicationLogin } from './flow-channel/flow-channel';
import { HookContext } from './hook-context';
import { REASON } from './v5/reason-codes';
import { willOf, willRefusal } from './will-topic';
import { connackReasonFor, isDeviceIdForm, refuseConnect } from './v5/refusals';

/** CONNACK 5, "not authorized" [MQTT-3.2.2-3]: what NETPIE answers for every refused key (netpie reference §3.1). */
const NOT_AUTHORIZED = 5;
/** CONNACK 2, "identifier rejected": an MQTT 3.1 CONNECT without a ClientID (3.1 wants 1 to 23 characters). */
const IDENTIFIER_REJECTED = 2;
/** The protocol level of MQTT 3.1 (`MQIsdp`). */
const MQTT_3_1 = 3;
/** CONNACK 3, "server unavailable": the project's messages quota is spent, or the registry or quota store cannot answer. */
const SERVER_UNAVAILABLE = 3;

/**
 * CONNECT: ClientID = deviceid, username = token, password = secret or empty, admitted by devices/admission.ts (which
 * also charges the project's messages quota for the connection); the accepted device becomes the connection's scope.
 * This hook only translates refusals: MQTT 3.1.1 return codes, and for MQTT 5 a reason code of its own
 * (v5/refusals.ts) with the reason as Reason String.
 *
 * An empty ClientID is served (issue 17): the token names the device, whose id becomes the ClientID before aedes
 * reads the session, so the connection is the device's as if it had sent its id ([MQTT-3.1.3-6]; MQTT 5 hears the id
 * as Assigned Client Identifier [MQTT-3.2.2-16]). aedes itself refuses MQTT 3.1.1 with CleanSession 0 [MQTT-3.1.3-8];
 * MQTT 5 Clean Start 0 resumes the device's stored session, as the id would.
 */
export function authenticateHook(ctx: HookContext): Aedes['authenticate'] {
  const { admission, logger, scopes, withoutClientId, apps } = ctx;
  return (client, username, password, done) => {
    forgetCredentials(client);
    const refuse = (why: string, returnCode = NOT_AUTHORIZED, reasonCode: number = REASON.NOT_AUTHORIZED, code?: string) => {
      logger.info({ deviceid: client.id, why }, 'mqtt connection refused');
      ctx.connections.refused(client, why, code);
      if (client.version === 5) return refuseConnect(client, reasonCode, why, done);
      const err = new Error(why) as AuthenticateError;
      err.returnCode = returnCode;
      done(err, false);
    };
    if (isApplicationLogin(client.id, username)) return application(client, username, password);
    const withoutId = withoutClientId.has(client);
    if (withoutId && client.version === MQTT_3_1) return refuse('MQTT 3.1 needs a ClientID', IDENTIFIER_REJECTED);
    // MQTT 5: a ClientID that cannot be a device id is 0x85; MQTT 3.1.1 keeps NETPIE's one answer, 5.
    if (!withoutId && client.version === 5 && !isDeviceIdForm(client.id)) {
      return refuse('the ClientID must be a device id', NOT_AUTHORIZED, REASON.CLIENT_IDENTIFIER_NOT_VALID);
    }
    const credentials = { deviceid: withoutId ? undefined : client.id, token: username ?? '', secret: password?.toString() ?? '' };
    admission.connection(sourceOf(client), credentials).then(
      (device) => {
        // Before aedes reads the session and registers the client (lib/handlers/connect.js: authenticate runs first).
        const badWill = willRefusal(ctx.shadowTopics, client, device);
        if (badWill) return refuse(badWill.error.message, NOT_AUTHORIZED, badWill.reasonCode);
        if (withoutId) assignClientId(client, device.deviceid);
        scopes.set(client, device);
        done(null, true);
      },
      (err: unknown) => refused(err),
    );

    /**
     * An application (NETPIE's Flow Channel: flow-channel/): ClientID `{key}-...`, username the key, password its
     * secret. Its connection keeps no session and carries no will: both belong to devices.
     */
    function application(client: Client, key: string, secret: Buffer | undefined) {
      if (client.clean === false) return refuse('an application connection keeps no session: connect with a clean session and no Session Expiry');
      if (willOf(client)) return refuse('an application connection carries no will');
      admission.application(sourceOf(client), key, secret?.toString() ?? '').then((app) => {
        apps.set(client, { app, clientId: client.id, source: sourceOf(client), watches: new Map() });
        done(null, true);
      }, refused);
    }

    function refused(err: unknown) {
      if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') return refuse(err.message, SERVER_UNAVAILABLE, REASON.QUOTA_EXCEEDED, err.code);
      // Guessing throttled: "try later" in both versions; MQTT 5 names it [MQTT-3.2.2-8] (0x9F Connection rate exceeded).
      if (err instanceof AppError && err.code === 'TOO_MANY_FAILURES') return refuse(err.message, SERVER_UNAVAILABLE, REASON.CONNECTION_RATE_EXCEEDED, err.code);
      // A refused device or application (unknown, wrong token or secret, disabled) is not authorized; a registry or
      // quota store that cannot answer (Cassandra unreachable) is return code 3, "Server unavailable" (MQTT 3.1.1
      // §3.2.2.3), so the client retries later.
      if (err instanceof AppError && err.status < 500) return refuse(err.message, NOT_AUTHORIZED, connackReasonFor(err.code), err.code);
      // The details of a 5xx stay in the log (core/errors.ts, `expose`); the device hears only that it may retry.
      logger.warn({ deviceid: client.id, err }, 'mqtt connection refused: the registry or quota store did not answer');
      refuse('the device registry is unavailable; try again later', SERVER_UNAVAILABLE, REASON.SERVER_UNAVAILABLE, 'BACKEND_UNAVAILABLE');
    }
  };
}
