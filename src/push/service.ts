import { decodeOrThrow } from '../core/decode-errors';
import { Device } from '../devices/device';
import { PushRequest } from './codecs';

export interface PushDeps {
  /** Hands an accepted push on as a DEVICE.PUSH event (triggers/runner.ts); must return at once and never throw. */
  onPush: (device: Device, push: PushRequest) => void;
}

/**
 * `@push` and `PUT /push` (issue 18 §4): a device asks for a notification to its owner. The service has no mobile
 * app of its own, so the push becomes a DEVICE.PUSH event whose triggers run event hooks (a webhook to a notification
 * service, a message); with no such trigger it goes nowhere (docs/automation.md "Pushes").
 */
export function createPushService({ onPush }: PushDeps) {
  return {
    /** Decodes the request (400 INVALID_BODY naming what is wrong) and hands it on. */
    push(device: Device, body: unknown): PushRequest {
      const push = decodeOrThrow(PushRequest, body);
      onPush(device, push);
      return push;
    },
  };
}

export type PushService = ReturnType<typeof createPushService>;
