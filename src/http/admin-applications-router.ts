import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { Application, IssuedApplication } from '../applications/application';
import { ApplicationKey, ApplicationListQuery, CreateApplicationRequest, UpdateApplicationRequest } from '../applications/codecs';
import { Applications } from '../applications/service';
import { decodeOrThrow } from '../core/decode-errors';
import { requireProject, requireProjectOf, withinProjects } from '../operators/access';
import { ADMIN_BODY_LIMIT, readJson } from './body';

export interface AdminApplicationsRouterDeps {
  /** Guards every route (http/admin-auth.ts, then http/admin-access.ts: roles and the audit log). */
  adminAuth: Middleware;
  applications: Applications;
}

/** What the API shows of a key: never its secret, nor the secret's digest. */
const record = ({ secret, ...application }: Application) => application;

/** A secret is shown in the answer that makes it, and never again: no cache may keep that answer. */
const issued = (ctx: Context, { application, issued: credentials }: IssuedApplication) => {
  ctx.set('Cache-Control', 'no-store');
  return { ...record(application), secret: credentials.secret };
};

const keyOf = (ctx: Context) => decodeOrThrow(ApplicationKey, ctx.params.key, 'INVALID_QUERY');

/** Application keys (issue 22 §1; docs/operations.md "Application keys"), under /v2/admin. */
export function adminApplicationsRouter({ adminAuth, applications }: AdminApplicationsRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  router.use(adminAuth);
  // The project of a key an operator limited to some projects acts on (operators/access.ts requireProjectOf).
  const projectOfKey = (key: string) => async () => (await applications.get(key)).projectid;

  router.post('/applications', async (ctx) => {
    const req = decodeOrThrow(CreateApplicationRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    requireProject(ctx, req.projectid);
    ctx.status = 201;
    ctx.body = issued(ctx, await applications.create(req));
  });

  router.get('/applications', async (ctx) => {
    const { projectid, limit, offset = 0 } = decodeOrThrow(ApplicationListQuery, { ...ctx.query }, 'INVALID_QUERY');
    // Without a project: the keys of the caller's projects (operators/access.ts).
    if (projectid !== undefined) requireProject(ctx, projectid);
    const all = withinProjects(ctx, await applications.list({ projectid }));
    ctx.body = { applications: all.slice(offset, limit === undefined ? undefined : offset + limit).map(record), total: all.length };
  });

  router.get('/applications/:key', async (ctx) => {
    const application = await applications.get(keyOf(ctx));
    requireProject(ctx, application.projectid);
    ctx.body = record(application);
  });

  router.patch('/applications/:key', async (ctx) => {
    const key = keyOf(ctx);
    const patch = decodeOrThrow(UpdateApplicationRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    await requireProjectOf(ctx, projectOfKey(key));
    ctx.body = record(await applications.update(key, patch));
  });

  // A lost secret is never shown again: it is replaced, the old one refused at once.
  router.post('/applications/:key/secret', async (ctx) => {
    const key = keyOf(ctx);
    await requireProjectOf(ctx, projectOfKey(key));
    ctx.body = issued(ctx, await applications.rotate(key));
  });

  router.delete('/applications/:key', async (ctx) => {
    const key = keyOf(ctx);
    await requireProjectOf(ctx, projectOfKey(key));
    await applications.revoke(key);
    ctx.status = 204;
  });

  return router;
}
