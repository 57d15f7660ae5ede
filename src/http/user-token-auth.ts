import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { Admission } from '../devices/admission';
import { UserTokenClaims, UserTokens } from '../tokens/user-tokens';

export interface UserTokenAuthDeps {
  userTokens: Pick<UserTokens, 'verify'>;
  /** Bearer tokens are checked under the guessing limits of the data store's (devices/admission.ts). */
  admission: Pick<Admission, 'guarded'>;
}

/**
 * The claims of the call's `Authorization: Bearer <user token>`: 401 MISSING_CREDENTIALS without one (`hint` says
 * which token the route wants), 401 INVALID_CREDENTIALS for a forged, expired or revoked one. The grants are the
 * route's to check.
 */
export async function userTokenClaimsOf(ctx: Context, { userTokens, admission }: UserTokenAuthDeps, hint: string): Promise<UserTokenClaims> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  if (!bearer) throw new AppError('MISSING_CREDENTIALS', `send Authorization: Bearer <user token>, ${hint}`);
  return admission.guarded('data-store', ctx.ip, 'bearer', async () => {
    const verified = await userTokens.verify(bearer[1]);
    if (!verified) throw new AppError('INVALID_CREDENTIALS', 'user token is malformed, forged or expired');
    return verified;
  });
}
