import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { DeviceFilter } from '../devices/port';
import { Role } from '../operators/codecs';
import { IssueTokenRequest } from './codecs';
import { UserTokenGrant, UserTokens } from './user-tokens';

export interface ProjectTokenDeps {
  listDevices(filter: DeviceFilter): Promise<Device[]>;
  userTokens: Pick<UserTokens, 'issue'>;
}

/**
 * The least operator role that may issue a token holding each grant (docs/operations.md "Operators and roles"): a
 * token that only reads (points, or shadows through the fleet query) reads nothing its caller's project does not show a
 * viewer; one that changes things (deletes history, writes desired state) outlives the operator's session: an admin's.
 */
export const GRANT_ROLES: Readonly<Record<UserTokenGrant, Role>> = { read: 'viewer', fleet: 'viewer', write: 'admin', desired: 'admin' };

/** The grants a request asks for: its `scope` (`read` when absent) and its `grants`. */
export const grantsOfRequest = (req: IssueTokenRequest): UserTokenGrant[] => [req.scope ?? 'read', ...(req.grants ?? [])];

/**
 * POST /v2/admin/tokens: a user token for a project that exists. Projects exist through their devices (docs), so a
 * project without one is a typo or a project gone, and a token for it would read nothing until a device of that
 * name appears, and then read it (issue 20 §6): refused with 404 PROJECT_NOT_FOUND.
 */
export async function issueProjectToken({ listDevices, userTokens }: ProjectTokenDeps, projectid: string, ttlSeconds: number, grants: UserTokenGrant[]) {
  if ((await listDevices({ projectid })).length === 0) {
    throw new AppError('PROJECT_NOT_FOUND', `project "${projectid}" has no device; user tokens are issued for existing projects only`);
  }
  return userTokens.issue(projectid, ttlSeconds, grants);
}
