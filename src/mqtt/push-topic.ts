import { AppError } from '../core/errors';
import { parseJson } from '../core/json';
import { Device } from '../devices/device';
import { PUSH_LIMITS } from '../push/codecs';
import { publishErrorNotice } from './error-notice';
import { HookContext } from './hook-context';

/** Where a device publishes a notification for its owner (netpie reference §3.1). */
export const PUSH_TOPIC = '@push';

/**
 * Serves a `@push` (push/service.ts): never forwarded, never a reason to close the connection. A refused one (not
 * JSON, a wrong shape, over 8 KiB) is told on the device's `@private/error` with the REST error body; an accepted one
 * sends nothing back, as NETPIE. Resolves once served; never rejects.
 */
export async function servePush(ctx: Pick<HookContext, 'push' | 'bus' | 'logger'>, device: Device, payload: Buffer): Promise<void> {
  try {
    if (payload.length > PUSH_LIMITS.maxBodyBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `payload is larger than ${PUSH_LIMITS.maxBodyBytes} bytes`);
    }
    ctx.push.push(device, parseJson(payload, 'strict', 'payload'));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    ctx.logger.info({ deviceid: device.deviceid, code: err.code }, 'mqtt push refused');
    await publishErrorNotice(ctx.bus, device.deviceid, err, ctx.logger);
  }
}
