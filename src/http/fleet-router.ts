import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { decodeOrThrow } from '../core/decode-errors';
import { FleetQueryRequest } from '../fleet/codecs';
import { FleetQueries } from '../fleet/service';
import { requireGrant } from '../tokens/user-tokens';
import { projectOf } from './admin-path-scope';
import { cancelledWhenGone, queryRefusals } from './answer-body';
import { readJson } from './body';
import { UserTokenAuthDeps, userTokenClaimsOf } from './user-token-auth';

/** A fleet query's body: a filter (1024 characters at most), a few paths, a cursor. */
const FLEET_BODY_LIMIT = 16 * 1024;

export interface FleetRouterDeps extends UserTokenAuthDeps {
  /** Guards the admin route (http/admin-auth.ts, then the route's role). */
  adminAuth: Middleware;
  fleet: FleetQueries;
}

/**
 * The fleet query (issue 25 §4, docs/fleet-query.md): the same body and answer for an operator of the project
 * (admin API) and for a user token with the `fleet` grant (its own project).
 */
export function fleetRouter(deps: FleetRouterDeps): Router {
  const router = new Router();
  const answer = async (ctx: Context, projectid: string) => {
    const request = decodeOrThrow(FleetQueryRequest, await readJson(ctx, FLEET_BODY_LIMIT));
    ctx.body = await deps.fleet.query(projectid, request, cancelledWhenGone(ctx));
  };

  router.post('/v2/admin/projects/:projectid/shadows/query', deps.adminAuth, queryRefusals, async (ctx) => {
    await answer(ctx, projectOf(ctx));
  });

  router.post('/v2/shadows/query', queryRefusals, async (ctx) => {
    const claims = await userTokenClaimsOf(ctx, deps, 'a token issued with the grant "fleet"');
    requireGrant(claims, 'fleet');
    await answer(ctx, claims.projectid);
  });

  return router;
}
