import Router from '@koa/router';
import type { Middleware } from 'koa';
import { closed } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { Ttl } from '../timeseries/durations';
import { Retention } from '../timeseries/retention-policy';
import { projectOf } from './admin-path-scope';
import { readJson } from './body';

/** `{"retention": "30d"}`: a NETPIE ttl duration, text or a number of ms (timeseries/durations.ts). */
export const RetentionRequest = closed({ retention: Ttl });

/** A retention body is one short member. */
const RETENTION_BODY_LIMIT = 1024;

export interface AdminRetentionRouterDeps {
  /** Guards every route (http/admin-auth.ts). */
  adminAuth: Middleware;
  retention: Retention;
}

/**
 * A project's retention of points (issue 23 §2) under /v2/admin: read, set, or drop back to POINT_RETENTION. A change
 * applies to points written afterwards (docs/data-store.md "Retention").
 */
export function adminRetentionRouter({ adminAuth, retention }: AdminRetentionRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  const path = '/projects/:projectid/retention';
  router.use(adminAuth);
  router.get(path, async (ctx) => {
    ctx.body = await retention.report(projectOf(ctx));
  });
  router.put(path, async (ctx) => {
    const projectid = projectOf(ctx);
    const request = decodeOrThrow(RetentionRequest, await readJson(ctx, RETENTION_BODY_LIMIT));
    ctx.body = await retention.setProjectRetention(projectid, request.retention);
  });
  router.delete(path, async (ctx) => {
    await retention.clearProjectRetention(projectOf(ctx));
    ctx.status = 204;
  });
  return router;
}
