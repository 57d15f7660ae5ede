import type { Middleware } from 'koa';
import Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { decodeOrThrow } from '../core/decode-errors';
import { Registry } from '../devices/service';
import { MonthQuery, QuotaLimitsRequest } from '../quotas/codecs';
import { Limits, QUOTA_NAMES } from '../quotas/quota';
import { QuotaService } from '../quotas/service';
import { SchemaOwner } from '../schema/port';
import { SchemaService } from '../schema/service';
import { TriggerService } from '../triggers/service';
import { deviceOfPath, groupOf, projectOf } from './admin-path-scope';
import { readJson } from './body';

/** Schemas, trigger lists and hooks are larger than device records: 256 KiB (docs/limits-and-errors.md "Limits"). */
export const AUTOMATION_BODY_LIMIT = 256 * 1024;

export interface AdminAutomationRouterDeps {
  /** Guards every route (http/admin-auth.ts). */
  adminAuth: Middleware;
  schemas: SchemaService;
  quotas: QuotaService;
  triggers: TriggerService;
  /** Finds the project of a device, for an operator limited to some projects. */
  registry: Pick<Registry, 'getDevice'>;
}

/** Schemas, triggers, event hooks, the delivery log and quotas of the admin API (issue 5 §6), under /v2/admin. */
export function adminAutomationRouter({ adminAuth, schemas, quotas, triggers, registry }: AdminAutomationRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  router.use(adminAuth);
  // A device's schema and triggers: its project must be the caller's.
  const deviceOf = deviceOfPath(registry);

  const schemaRoutes = (path: string, ownerOf: (ctx: Context) => Promise<SchemaOwner>) => {
    router.get(path, async (ctx) => {
      const owner = await ownerOf(ctx);
      // `?optional=true`: no schema is a 204, not a 404 (the console reads the schema of every device it opens, and
      // most have none; a 404 is a console error in the browser, issue 24 §4). API clients keep the 404 by default.
      if (ctx.query.optional === 'true') {
        const schema = await schemas.getSchema(owner).catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'SCHEMA_NOT_FOUND') return undefined;
          throw err;
        });
        if (schema === undefined) ctx.status = 204;
        else ctx.body = schema;
        return;
      }
      ctx.body = await schemas.getSchema(owner);
    });
    router.put(path, async (ctx) => {
      const owner = await ownerOf(ctx);
      ctx.body = await schemas.putSchema(owner, await readJson(ctx, AUTOMATION_BODY_LIMIT));
    });
    router.delete(path, async (ctx) => {
      await schemas.deleteSchema(await ownerOf(ctx));
      ctx.status = 204;
    });
  };
  schemaRoutes('/devices/:deviceid/schema', async (ctx) => ({ deviceid: await deviceOf(ctx) }));
  schemaRoutes('/projects/:projectid/groups/:groupid/schema', async (ctx) => groupOf(ctx));

  router.get('/devices/:deviceid/triggers', async (ctx) => {
    ctx.body = await triggers.getTriggers(await deviceOf(ctx));
  });
  router.put('/devices/:deviceid/triggers', async (ctx) => {
    const deviceid = await deviceOf(ctx);
    ctx.body = await triggers.putTriggers(deviceid, await readJson(ctx, AUTOMATION_BODY_LIMIT));
  });
  router.delete('/devices/:deviceid/triggers', async (ctx) => {
    await triggers.deleteTriggers(await deviceOf(ctx));
    ctx.status = 204;
  });

  router.get('/projects/:projectid/hooks', async (ctx) => {
    ctx.body = await triggers.listHooks(projectOf(ctx));
  });
  router.get('/projects/:projectid/hooks/:name', async (ctx) => {
    ctx.body = await triggers.getHook(projectOf(ctx), ctx.params.name);
  });
  router.put('/projects/:projectid/hooks/:name', async (ctx) => {
    const projectid = projectOf(ctx);
    ctx.body = await triggers.putHook(projectid, ctx.params.name, await readJson(ctx, AUTOMATION_BODY_LIMIT));
  });
  router.delete('/projects/:projectid/hooks/:name', async (ctx) => {
    await triggers.deleteHook(projectOf(ctx), ctx.params.name);
    ctx.status = 204;
  });

  router.get('/projects/:projectid/deliveries', async (ctx) => {
    ctx.body = await triggers.deliveries(projectOf(ctx), { ...ctx.query });
  });

  router.get('/projects/:projectid/quotas', async (ctx) => {
    const projectid = projectOf(ctx);
    const { month } = decodeOrThrow(MonthQuery, { ...ctx.query }, 'INVALID_QUERY');
    ctx.body = await quotas.report(projectid, month);
  });

  router.put('/projects/:projectid/quotas', async (ctx) => {
    const projectid = projectOf(ctx);
    const request = decodeOrThrow(QuotaLimitsRequest, await readJson(ctx, AUTOMATION_BODY_LIMIT));
    const limits: Limits = {};
    for (const q of QUOTA_NAMES) {
      const limit = request[q];
      if (typeof limit === 'number') limits[q] = limit;
    }
    await quotas.setLimits(projectid, limits);
    ctx.body = await quotas.report(projectid);
  });

  return router;
}
