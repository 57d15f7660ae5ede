import { closed, stringMatching } from '../core/codecs';

/**
 * DELETE /v2/admin/tokens/{jti}: the `jti` of a user token, a UUID as POST /v2/admin/tokens answers it. Any case is
 * taken, for the route to lower: a copy in capitals still names the token (its claim is lower case).
 */
export const RevokeTokenPath = closed({
  jti: stringMatching('jti', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    'expected the jti of a user token: a UUID such as 3f0c5a52-8d7e-4c1b-9a4e-2b6f1d0c7e95'),
});
