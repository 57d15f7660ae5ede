import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { IMPORT_LIMITS, ImportRow } from '../devices/import';
import { rowsFromCsv, rowsFromJson } from '../devices/import-input';
import { readJson, readRaw } from './body';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The rows of POST /v2/admin/devices/import: CSV with `Content-Type: text/csv`, else JSON (readJson's types). The
 * body may be up to IMPORT_LIMITS.maxBodyBytes, far above other admin bodies: a fleet in one file.
 */
export async function readImportRows(ctx: Context): Promise<ImportRow[]> {
  if (ctx.request.type !== 'text/csv') return rowsFromJson(await readJson(ctx, IMPORT_LIMITS.maxBodyBytes));
  const raw = await readRaw(ctx, IMPORT_LIMITS.maxBodyBytes);
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new AppError('INVALID_BODY', 'the CSV text is not valid UTF-8');
  }
  return rowsFromCsv(text);
}
