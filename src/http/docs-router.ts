import Router from '@koa/router';
import { createReadStream, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../core/errors';
import { openApiDocument } from './openapi/document';
import { setPageHeaders } from './page-headers';
import { trialDocument } from './trial-document';
import { TRIAL_DOCUMENT_PATH, TRIAL_INIT_SCRIPT, TRIAL_PAGE } from './trial-page';

/**
 * The explorer's files, served from the installed swagger-ui-dist package (no CDN: the service must work offline).
 * Only these names are served, so no request can reach another file of node_modules.
 */
const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

/** A day: the files change only when swagger-ui-dist is upgraded, and the ETag catches that on revalidation. */
const ASSET_MAX_AGE_S = 86_400;

const swaggerUiDir = () => dirname(require.resolve('swagger-ui-dist/package.json'));

/**
 * GET /openapi.json (the document of the whole API) and the trial explorer at /trial (issue 6 §1), which shows the
 * same document without the alias paths (trial-document.ts, issue 24 §4).
 */
export function docsRouter(): Router {
  const router = new Router();
  const full = openApiDocument();
  const document = JSON.stringify(full);
  const explorerDocument = JSON.stringify(trialDocument(full));
  const dir = swaggerUiDir();

  router.get('/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'application/json';
    ctx.body = document;
  });

  // Also answers /trial/ (the router ignores one trailing slash); the page uses absolute URLs, so both work.
  router.get('/trial', (ctx) => {
    setPageHeaders(ctx);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = TRIAL_PAGE;
  });

  router.get('/trial/:file', (ctx) => {
    const file = ctx.params.file;
    setPageHeaders(ctx);
    if (file === 'trial.js') {
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = TRIAL_INIT_SCRIPT;
      return;
    }
    if (`/trial/${file}` === TRIAL_DOCUMENT_PATH) {
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'application/json';
      ctx.body = explorerDocument;
      return;
    }
    const type = Object.hasOwn(SWAGGER_UI_FILES, file) ? SWAGGER_UI_FILES[file] : undefined;
    if (type === undefined) throw new AppError('ROUTE_NOT_FOUND', `no explorer file ${file}`);
    const path = join(dir, file);
    const stat = statSync(path);
    ctx.set('Cache-Control', `public, max-age=${ASSET_MAX_AGE_S}`);
    ctx.etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    ctx.lastModified = stat.mtime;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = type;
    ctx.length = stat.size;
    // Koa sends no body for HEAD; a stream it would never read would keep its file open.
    if (ctx.method !== 'HEAD') ctx.body = createReadStream(path);
  });

  return router;
}
