import * as t from 'io-ts';
import { closed, intBetween, ScopeId, stringMatching } from '../core/codecs';
import { USER_TOKEN_MAX_TTL_SECONDS } from './user-tokens';

/**
 * DELETE /v2/admin/tokens/{jti}: the `jti` of a user token, a UUID as POST /v2/admin/tokens answers it. Any case is
 * taken, for the route to lower: a copy in capitals still names the token (its claim is lower case).
 */
export const RevokeTokenPath = closed({
  jti: stringMatching('jti', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    'expected the jti of a user token: a UUID such as 3f0c5a52-8d7e-4c1b-9a4e-2b6f1d0c7e95'),
});

/** One grant of a user token (user-tokens.ts UserTokenGrant). */
export const UserTokenGrantName = t.keyof({ read: null, write: null, fleet: null, desired: null });

/**
 * POST /v2/admin/tokens. Token lifetime in seconds: up to one year; 24 hours when absent, as NETPIE's own user tokens.
 * `scope` `write` also lets the token delete history; `read` when absent. `grants` names grants beside it (`fleet`,
 * `desired`, and `read`/`write` as `scope` does): the token holds the union.
 */
export const IssueTokenRequest = closed(
  { projectid: ScopeId },
  {
    ttl: intBetween(1, USER_TOKEN_MAX_TTL_SECONDS),
    scope: t.keyof({ read: null, write: null }),
    grants: t.array(UserTokenGrantName),
  },
);
export type IssueTokenRequest = t.TypeOf<typeof IssueTokenRequest>;
