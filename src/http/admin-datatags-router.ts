import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { DatatagOwner } from '../datatags/port';
import { DatatagService } from '../datatags/service';
import { Registry } from '../devices/service';
import { AUTOMATION_BODY_LIMIT } from './admin-automation-router';
import { deviceOfPath, groupOf } from './admin-path-scope';
import { readJson } from './body';

export interface AdminDatatagsRouterDeps {
  /** Guards every route (http/admin-auth.ts). */
  adminAuth: Middleware;
  datatags: DatatagService;
  /** Finds the project of a device, for an operator limited to some projects. */
  registry: Pick<Registry, 'getDevice'>;
}

/** Datatags (issue 23 §1) of the admin API, under /v2/admin: a device's own and a group's default, and a device's points. */
export function adminDatatagsRouter({ adminAuth, datatags, registry }: AdminDatatagsRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  router.use(adminAuth);
  const deviceOf = deviceOfPath(registry);

  /** The routes a device and a group default share: the list, the enable toggle, delete feed. */
  const tagRoutes = (path: string, ownerOf: (ctx: Context) => Promise<DatatagOwner>) => {
    router.get(path, async (ctx) => {
      ctx.body = await datatags.list(await ownerOf(ctx));
    });
    router.put(path, async (ctx) => {
      const owner = await ownerOf(ctx);
      ctx.body = await datatags.replace(owner, await readJson(ctx, AUTOMATION_BODY_LIMIT));
    });
    router.patch(`${path}/:attr`, async (ctx) => {
      const owner = await ownerOf(ctx);
      ctx.body = await datatags.setEnabled(owner, ctx.params.attr, await readJson(ctx, AUTOMATION_BODY_LIMIT));
    });
    router.delete(`${path}/:attr`, async (ctx) => {
      await datatags.remove(await ownerOf(ctx), ctx.params.attr);
      ctx.status = 204;
    });
  };
  tagRoutes('/devices/:deviceid/datatags', async (ctx) => ({ deviceid: await deviceOf(ctx) }));
  tagRoutes('/projects/:projectid/groups/:groupid/datatags', async (ctx) => groupOf(ctx));

  router.post('/devices/:deviceid/datatags/:attr/clear', async (ctx) => {
    await datatags.clear(await deviceOf(ctx), ctx.params.attr);
    ctx.status = 204;
  });
  router.put('/devices/:deviceid/datatags/:attr/points/:timestamp', async (ctx) => {
    const deviceid = await deviceOf(ctx);
    ctx.body = await datatags.putPoint(deviceid, ctx.params.attr, ctx.params.timestamp, await readJson(ctx, AUTOMATION_BODY_LIMIT));
  });
  router.delete('/devices/:deviceid/datatags/:attr/points/:timestamp', async (ctx) => {
    await datatags.deletePoint(await deviceOf(ctx), ctx.params.attr, ctx.params.timestamp);
    ctx.status = 204;
  });
  return router;
}
