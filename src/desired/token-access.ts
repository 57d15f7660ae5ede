import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { requireGrant, UserTokenClaims } from '../tokens/user-tokens';

/**
 * The device a user token may read and write the desired document of (issue 25 §2): a token issued with the `desired`
 * grant, and a device of the token's project. Tokens issued before the grant existed never hold it. A device of another
 * project is answered as one that does not exist, so a token learns nothing of other tenants.
 */
export async function deviceForToken(claims: UserTokenClaims, deviceid: string, getDevice: (deviceid: string) => Promise<Device | undefined>): Promise<Device> {
  requireGrant(claims, 'desired');
  const device = await getDevice(deviceid);
  if (!device || device.projectid !== claims.projectid) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid} in the token's project`);
  return device;
}
