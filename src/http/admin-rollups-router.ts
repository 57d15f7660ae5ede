import Router from '@koa/router';
import type { Middleware } from 'koa';
import { decodeOrThrow } from '../core/decode-errors';
import { RollupService } from '../timeseries/rollups/service';
import { RollupRequest } from '../timeseries/rollups/tiers';
import { projectOf } from './admin-path-scope';
import { readJson } from './body';

/** A declaration lists at most MAX_TIERS short tiers. */
const ROLLUPS_BODY_LIMIT = 4096;

export interface AdminRollupsRouterDeps {
  /** Guards every route (http/admin-auth.ts). */
  adminAuth: Middleware;
  rollups: RollupService;
}

/** A project's roll-up tiers (issue 23 §3; docs/data-store.md "Roll-ups") under /v2/admin: read, replace, remove. */
export function adminRollupsRouter({ adminAuth, rollups }: AdminRollupsRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  const path = '/projects/:projectid/rollups';
  router.use(adminAuth);
  router.get(path, async (ctx) => {
    ctx.body = await rollups.report(projectOf(ctx));
  });
  router.put(path, async (ctx) => {
    const projectid = projectOf(ctx);
    const request = decodeOrThrow(RollupRequest, await readJson(ctx, ROLLUPS_BODY_LIMIT));
    ctx.body = await rollups.declare(projectid, request.tiers);
  });
  router.delete(path, async (ctx) => {
    await rollups.clear(projectOf(ctx));
    ctx.status = 204;
  });
  return router;
}
