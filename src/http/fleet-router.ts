import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { closed, ScopeId } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { AppError } from '../core/errors';
import { FleetQueryRequest } from '../fleet/codecs';
import { FleetQueries } from '../fleet/service';
import { requireProject } from '../operators/access';
import { QueryCancelledError } from '../timeseries/query';
import { hasGrant } from '../tokens/user-tokens';
import { cancelledWhenGone } from './answer-body';
import { readJson } from './body';
import { UserTokenAuthDeps, userTokenClaimsOf } from './user-token-auth';

/** A fleet query's body: a filter (1024 characters at most), a few paths, a cursor. */
const FLEET_BODY_LIMIT = 16 * 1024;

const ProjectPath = closed({ projectid: ScopeId });

export interface FleetRouterDeps extends UserTokenAuthDeps {
  /** Guards the admin route (http/admin-auth.ts, then the route's role). */
  adminAuth: Middleware;
  fleet: FleetQueries;
}

/** The project of a user token that holds the `fleet` grant (docs/operations.md "User-token grants"). */
async function fleetProjectOf(ctx: Context, deps: FleetRouterDeps): Promise<string> {
  const claims = await userTokenClaimsOf(ctx, deps, 'a token issued with the grant "fleet"');
  if (!hasGrant(claims, 'fleet')) {
    throw new AppError('TOKEN_GRANT_MISSING', 'this user token was issued without the grant "fleet"; issue one with "grants": ["fleet"] (POST /v2/admin/tokens)', { grant: 'fleet' });
  }
  return claims.projectid;
}

/**
 * The fleet query (issue 25 §4, docs/fleet-query.md): the same body and answer for an operator of the project
 * (admin API) and for a user token with the `fleet` grant (its own project).
 */
export function fleetRouter(deps: FleetRouterDeps): Router {
  const router = new Router();
  const answer = async (ctx: Context, projectid: string) => {
    const request = decodeOrThrow(FleetQueryRequest, await readJson(ctx, FLEET_BODY_LIMIT));
    try {
      ctx.body = await deps.fleet.query(projectid, request, cancelledWhenGone(ctx));
    } catch (err) {
      // Nobody is left to answer: 499, as the data store's queries.
      if (err instanceof QueryCancelledError) {
        ctx.status = 499;
        return;
      }
      if (err instanceof AppError && err.code === 'TOO_MANY_QUERIES') ctx.set('Retry-After', String(err.extra.retryAfter));
      throw err;
    }
  };

  router.post('/v2/admin/projects/:projectid/shadows/query', deps.adminAuth, async (ctx) => {
    const { projectid } = decodeOrThrow(ProjectPath, { projectid: ctx.params.projectid }, 'INVALID_QUERY');
    requireProject(ctx, projectid);
    await answer(ctx, projectid);
  });

  router.post('/v2/shadows/query', async (ctx) => {
    await answer(ctx, await fleetProjectOf(ctx, deps));
  });

  return router;
}
