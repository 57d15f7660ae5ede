import { isRight } from 'fp-ts/Either';
import * as t from 'io-ts';
import { describeErrors } from '../core/decode-errors';
import { AppError, ERROR_STATUS, ErrorCode } from '../core/errors';
import { CreateDeviceRequest } from './codecs';
import { CredentialKey } from './credential-key';
import { Device, IssuedCredentials } from './device';
import { DeviceStore, SessionControl } from './port';
import { newDevice, registerDevice } from './registration';

/** The limits of one import (docs/limits-and-errors.md "Limits"). */
export const IMPORT_LIMITS = {
  maxRows: 10_000,
  /** Bytes of the body: room for 10,000 rows of about 400 bytes. */
  maxBodyBytes: 4 * 1024 * 1024,
  /** Store calls of one import in flight at once. */
  concurrency: 16,
} as const;

/** One device of an import as sent, not yet decoded; `line` is where it starts in a CSV file. */
export interface ImportRow {
  readonly fields: unknown;
  readonly line?: number;
  /** What makes the row unreadable as a whole (a CSV record with too many cells). */
  readonly problem?: string;
}

/** One problem of one row; `row` counts devices from 1, `field` is null for the row as a whole. */
export interface RowError {
  row: number;
  line?: number;
  field: string | null;
  code: ErrorCode;
  message: string;
}

const CREDENTIALS = ['deviceid', 'token', 'secret'] as const;

/** What an import did, or would do, for one row: credentials appear only when made here, and only this once. */
export interface ImportedDevice {
  row: number;
  /** Absent in a dry run when the service is to make it. */
  deviceid?: string;
  projectid: string;
  groupid: string;
  alias: string;
  enabled: boolean;
  description: string;
  livenessttl: number;
  generated: (typeof CREDENTIALS)[number][];
  token?: string;
  secret?: string;
}

export interface ImportReport {
  dryRun: boolean;
  count: number;
  devices: ImportedDevice[];
}

interface Planned {
  at: { row: number; line?: number };
  req: CreateDeviceRequest;
  device: Device;
  issued: IssuedCredentials;
}

export interface ImportDeps {
  devices: DeviceStore;
  sessions: SessionControl;
  credentialKey: CredentialKey;
  now: () => number;
}

/**
 * Registers many devices, all or none (issue 18 §3): every row is decoded and checked, against the others and the
 * store, before anything is written, and every problem of every row is reported at once. A dry run stops there. A
 * row that a concurrent writer beats between the check and the write undoes the rows written before it.
 */
export async function importDevices(deps: ImportDeps, rows: readonly ImportRow[], dryRun: boolean): Promise<ImportReport> {
  if (rows.length === 0) throw new AppError('INVALID_BODY', 'no devices to import');
  if (rows.length > IMPORT_LIMITS.maxRows) {
    throw new AppError('PAYLOAD_TOO_LARGE', `${rows.length} devices; an import takes at most ${IMPORT_LIMITS.maxRows}`);
  }
  const decoded = rows.map(decodeRow);
  const errors = decoded.flatMap((d) => d.errors);
  const valid = decoded.flatMap((d) => (d.req ? [{ at: d.at, req: d.req }] : []));
  errors.push(...duplicatesWithin(valid), ...(await clashesWithStore(deps.devices, valid)));
  if (errors.length > 0) throw refusal(errors, rows.length);
  const created = deps.now();
  const planned: Planned[] = valid.map((v) => ({ ...v, ...newDevice(v.req, created, deps.credentialKey) }));
  if (!dryRun) await writeAll(deps, planned);
  return { dryRun, count: planned.length, devices: planned.map((p) => reportOf(p, dryRun)) };
}

function decodeRow(raw: ImportRow, index: number): { at: Planned['at']; req?: CreateDeviceRequest; errors: RowError[] } {
  const at = { row: index + 1, ...(raw.line === undefined ? {} : { line: raw.line }) };
  if (raw.problem !== undefined) return { at, errors: [{ ...at, field: null, code: 'INVALID_BODY', message: raw.problem }] };
  const result = CreateDeviceRequest.decode(raw.fields);
  if (isRight(result)) return { at, req: result.right, errors: [] };
  return { at, errors: result.left.map((e) => ({ ...at, field: fieldOf(e), code: 'INVALID_BODY', message: describeErrors([e])[0] })) };
}

/** The member an io-ts error is about: the first key below the row itself. */
const fieldOf = (e: t.ValidationError): string | null => e.context[1]?.key || null;

const aliasKey = (r: CreateDeviceRequest) => JSON.stringify([r.projectid, r.groupid, r.alias]);

/** A later row that repeats an earlier one's device id, token, or alias in the same group. */
function duplicatesWithin(rows: readonly Omit<Planned, 'device' | 'issued'>[]): RowError[] {
  const first = { deviceid: new Map<string, number>(), token: new Map<string, number>(), alias: new Map<string, number>() };
  const errors: RowError[] = [];
  const check = (at: Planned['at'], field: keyof typeof first, key: string | undefined, code: ErrorCode, what: string) => {
    if (key === undefined) return;
    const earlier = first[field].get(key);
    if (earlier === undefined) first[field].set(key, at.row);
    else errors.push({ ...at, field, code, message: `${what} is also in row ${earlier}` });
  };
  for (const { at, req } of rows) {
    check(at, 'deviceid', req.deviceid, 'DEVICE_ID_TAKEN', `device id ${req.deviceid}`);
    check(at, 'token', req.token, 'TOKEN_TAKEN', 'this token');
    check(at, 'alias', aliasKey(req), 'ALIAS_TAKEN', `alias "${req.alias}" of group ${req.groupid}`);
  }
  return errors;
}

/** Rows whose device id, token or alias a stored device has. */
async function clashesWithStore(devices: DeviceStore, rows: readonly Omit<Planned, 'device' | 'issued'>[]): Promise<RowError[]> {
  const errors: RowError[] = [];
  await eachConcurrently(rows, async ({ at, req }) => {
    const [byId, holders, named] = await Promise.all([
      req.deviceid === undefined ? undefined : devices.getDevice(req.deviceid),
      req.token === undefined ? [] : devices.tokenHolders(req.token),
      devices.findDevicesByAlias(req.projectid, req.alias),
    ]);
    if (byId) errors.push({ ...at, field: 'deviceid', code: 'DEVICE_ID_TAKEN', message: `device id ${req.deviceid} is already in use` });
    if (holders.length > 0) errors.push({ ...at, field: 'token', code: 'TOKEN_TAKEN', message: 'another device holds this token' });
    if (named.some((d) => d.groupid === req.groupid)) {
      errors.push({ ...at, field: 'alias', code: 'ALIAS_TAKEN', message: `alias "${req.alias}" is already used in group ${req.groupid}` });
    }
  });
  return errors;
}

const CONFLICT_FIELDS: Partial<Record<ErrorCode, string>> = { DEVICE_ID_TAKEN: 'deviceid', TOKEN_TAKEN: 'token', ALIAS_TAKEN: 'alias' };

/** Writes every planned device; on the first failure, takes out again every device written and throws. */
async function writeAll(deps: ImportDeps, planned: readonly Planned[]): Promise<void> {
  const written: Device[] = [];
  let failure: { at: Planned['at']; err: unknown } | undefined;
  await eachConcurrently(planned, async ({ at, req, device }) => {
    if (failure) return;
    try {
      await registerDevice(deps, device, req.token);
      written.push(device);
    } catch (err) {
      failure ??= { at, err };
    }
  });
  if (!failure) return;
  await undo(deps, written, failure.at.row);
  const { at, err } = failure;
  const field = err instanceof AppError ? CONFLICT_FIELDS[err.code] : undefined;
  if (!(err instanceof AppError) || field === undefined) throw err;
  throw refusal([{ ...at, field, code: err.code, message: `${err.message} (taken by another writer after the check)` }], planned.length);
}

/** Deletes the devices an import wrote, and cuts off any that connected meanwhile. */
async function undo(deps: ImportDeps, written: readonly Device[], failedRow: number): Promise<void> {
  const left: string[] = [];
  await eachConcurrently(written, async ({ deviceid }) => {
    try {
      await deps.devices.deleteDevice(deviceid);
      deps.sessions.disconnectDevice(deviceid, 'import undone');
    } catch {
      left.push(deviceid);
    }
  });
  if (left.length > 0) {
    throw new AppError('BACKEND_UNAVAILABLE', `the import failed at row ${failedRow}, and ${left.length} of the devices it ` +
      'wrote could not be deleted again: delete them (deviceids) before trying again', { deviceids: left });
  }
}

function reportOf({ at, req, device, issued }: Planned, dryRun: boolean): ImportedDevice {
  const generated = CREDENTIALS.filter((name) => req[name] === undefined);
  const shown = dryRun ? [] : generated.filter((name) => name !== 'deviceid');
  return {
    row: at.row,
    ...(dryRun && req.deviceid === undefined ? {} : { deviceid: device.deviceid }),
    projectid: device.projectid,
    groupid: device.groupid,
    alias: device.alias,
    enabled: device.enabled,
    description: device.description,
    livenessttl: device.livenessttl,
    generated,
    ...Object.fromEntries(shown.map((name) => [name, issued[name as 'token' | 'secret']])),
  };
}

/** IMPORT_INVALID (400) when a row is malformed, else IMPORT_CONFLICT (409); every problem, in row order. */
function refusal(errors: RowError[], total: number): AppError {
  const malformed = errors.some((e) => ERROR_STATUS[e.code] === 400);
  const rows = new Set(errors.map((e) => e.row)).size;
  const rowErrors = [...errors].sort((a, b) => a.row - b.row);
  return new AppError(malformed ? 'IMPORT_INVALID' : 'IMPORT_CONFLICT',
    `rows with problems: ${rows} of ${total}; nothing was imported`, { rowErrors });
}

async function eachConcurrently<A>(items: readonly A[], fn: (item: A) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(IMPORT_LIMITS.concurrency, items.length) }, worker));
}
