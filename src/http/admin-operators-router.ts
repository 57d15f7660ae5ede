import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { decodeOrThrow } from '../core/decode-errors';
import { actorOf, callerOf, roleOf } from '../operators/access';
import { AuditQuery, CreateOperatorRequest, OperatorName } from '../operators/codecs';
import { AuditLog } from '../operators/port';
import { IssuedOperator, Operators } from '../operators/service';
import { ADMIN_BODY_LIMIT, readJson } from './body';

export interface AdminOperatorsRouterDeps {
  /** Guards every route (http/admin-auth.ts, then http/admin-access.ts: these routes need `admin`, `/me` excepted). */
  adminAuth: Middleware;
  operators: Operators;
  audit: AuditLog;
}

const nameOf = (ctx: Context) => decodeOrThrow(OperatorName, ctx.params.name, 'INVALID_QUERY');

/** A key is shown in the answer that makes it, and never again: no cache may keep that answer. */
const issued = (ctx: Context, operator: IssuedOperator) => {
  ctx.set('Cache-Control', 'no-store');
  return operator;
};

/** Operator accounts, who is calling, and the audit log (issue 20 §5), under /v2/admin. */
export function adminOperatorsRouter({ adminAuth, operators, audit }: AdminOperatorsRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  router.use(adminAuth);

  // What the console shows (and hides) for the caller.
  router.get('/me', (ctx) => {
    const caller = callerOf(ctx);
    ctx.body = { name: actorOf(caller), role: roleOf(caller), projects: caller.kind === 'bootstrap' ? '*' : caller.projects };
  });

  router.post('/operators', async (ctx) => {
    const req = decodeOrThrow(CreateOperatorRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    ctx.status = 201;
    ctx.body = issued(ctx, await operators.create(req));
  });

  router.get('/operators', async (ctx) => {
    ctx.body = { operators: await operators.list() };
  });

  router.get('/operators/:name', async (ctx) => {
    ctx.body = await operators.get(nameOf(ctx));
  });

  // A lost key is never shown again: it is replaced, the old one refused at once.
  router.post('/operators/:name/key', async (ctx) => {
    ctx.body = issued(ctx, await operators.rotateKey(nameOf(ctx)));
  });

  router.delete('/operators/:name', async (ctx) => {
    await operators.remove(nameOf(ctx));
    ctx.status = 204;
  });

  router.get('/audit', async (ctx) => {
    const query = decodeOrThrow(AuditQuery, { ...ctx.query }, 'INVALID_QUERY');
    ctx.body = { entries: await audit.read({ since: query.since ?? 0, limit: query.limit ?? 100, actor: query.actor }) };
  });

  return router;
}
