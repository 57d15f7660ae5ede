import * as t from 'io-ts';
import { closed } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { AppError } from '../core/errors';
import { parseCsv } from './csv';
import { ImportRow } from './import';

/** The JSON form of an import: `{"devices": [...]}`, each member as the body of POST /v2/admin/devices. */
const ImportJson = closed({ devices: t.UnknownArray });

export const rowsFromJson = (body: unknown): ImportRow[] =>
  decodeOrThrow(ImportJson, body).devices.map((fields) => ({ fields }));

/** CSV columns, each a member of POST /v2/admin/devices; `clientid` is NETPIE's name for `deviceid`. */
const COLUMNS = ['deviceid', 'token', 'secret', 'projectid', 'groupid', 'alias', 'description', 'enabled', 'livenessttl'];
const SYNONYMS: Record<string, string> = { clientid: 'deviceid' };
const REQUIRED = ['projectid', 'groupid', 'alias'];

/** A cell as the member it stands for: `true`/`false` for `enabled`, digits for `livenessttl`; others are text. */
function valueOf(column: string, cell: string): unknown {
  if (column === 'enabled' && /^(true|false)$/i.test(cell)) return cell.toLowerCase() === 'true';
  if (column === 'livenessttl' && /^\d{1,9}$/.test(cell)) return Number(cell);
  return cell;
}

/**
 * The CSV form of an import: a header row naming columns (any order, any case), then a device per row. An empty
 * cell is a member left out: the service makes the credentials, the defaults apply, a required one is missing.
 */
export function rowsFromCsv(text: string): ImportRow[] {
  const [header, ...records] = parseCsv(text);
  if (header === undefined) throw new AppError('INVALID_BODY', 'the CSV text is empty; expected a header row naming the columns');
  const columns = header.cells.map((name) => {
    const column = name.trim().toLowerCase();
    return SYNONYMS[column] ?? column;
  });
  const unknown = columns.filter((c) => !COLUMNS.includes(c));
  if (unknown.length > 0) throw new AppError('INVALID_BODY', `unknown CSV columns: ${unknown.join(', ')}; the columns are ${COLUMNS.join(', ')}`);
  const twice = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (twice.length > 0) throw new AppError('INVALID_BODY', `CSV columns named twice: ${twice.join(', ')}`);
  const missing = REQUIRED.filter((c) => !columns.includes(c));
  if (missing.length > 0) throw new AppError('INVALID_BODY', `the CSV header lacks the columns ${missing.join(', ')}`);
  return records.map(({ cells, line }) => {
    if (cells.length > columns.length) return { fields: {}, line, problem: `${cells.length} cells, but the header names ${columns.length} columns` };
    const fields = Object.fromEntries(cells.flatMap((cell, i) => (cell === '' ? [] : [[columns[i], valueOf(columns[i], cell)]])));
    return { fields, line };
  });
}
