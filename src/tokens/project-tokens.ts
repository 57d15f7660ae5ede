import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { DeviceFilter } from '../devices/port';
import { UserTokens, UserTokenScope } from './user-tokens';

export interface ProjectTokenDeps {
  listDevices(filter: DeviceFilter): Promise<Device[]>;
  userTokens: Pick<UserTokens, 'issue'>;
}

/**
 * POST /v2/admin/tokens: a user token for a project that exists. Projects exist through their devices (docs), so a
 * project without one is a typo or a project gone, and a token for it would read nothing until a device of that
 * name appears, and then read it (issue 20 §6): refused with 404 PROJECT_NOT_FOUND.
 */
export async function issueProjectToken({ listDevices, userTokens }: ProjectTokenDeps, projectid: string, ttlSeconds: number, scope: UserTokenScope) {
  if ((await listDevices({ projectid })).length === 0) {
    throw new AppError('PROJECT_NOT_FOUND', `project "${projectid}" has no device; user tokens are issued for existing projects only`);
  }
  return userTokens.issue(projectid, ttlSeconds, scope);
}
