import type { Client } from 'aedes';
import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { acceptPublish } from '../messaging/device-publish';
import { PUSH_TOPIC } from './push-topic';
import { ShadowTopics } from './shadow-topics';
import { REASON } from './v5/reason-codes';

/** The Last Will of a CONNECT, as aedes keeps it until the connection is accepted (lib/handlers/connect.js). */
interface ConnectWill {
  topic: string;
  payload: Buffer;
}

export const willOf = (client: Client): ConnectWill | undefined => (client as Client & { _will?: ConnectWill })._will;

/**
 * The refusal of a CONNECT whose Last Will the device could not publish itself (issue 20 §6), with its MQTT 5 CONNACK
 * reason, or undefined. A will is a PUBLISH made for the device when it goes, so it meets the rule a PUBLISH meets:
 * a shadow request and `@push` are served (authorize-publish.ts servedHere), anything else is messaging's rule
 * (acceptPublish: `@msg/...` of the device's own group, no wildcards, within the limits).
 *
 * Accepting the CONNECT and dropping the will later would break [MQTT-3.1.2-8] (a will of an accepted connection
 * MUST be published), so the CONNECT is refused: MQTT 5 with 0x90 Topic Name invalid, which §3.2.2.2 gives for "a
 * Will Topic Name [that] is not malformed, but is not accepted by this Server"; MQTT 3.1.1 has no such code and is
 * refused with 5, as every refusal of NETPIE. (A Will Payload cannot pass the 256 KiB message limit: it has a
 * two-byte length, §3.1.3.4.)
 */
export function willRefusal(shadowTopics: ShadowTopics, client: Client, device: Device): { error: AppError; reasonCode: number } | undefined {
  const will = willOf(client);
  if (will === undefined || shadowTopics.isRequest(will.topic) || will.topic === PUSH_TOPIC) return undefined;
  try {
    acceptPublish(device, will.topic, will.payload.length);
    return undefined;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { error: new AppError(err.code, `Last Will refused: ${err.message}`), reasonCode: REASON.TOPIC_NAME_INVALID };
  }
}
