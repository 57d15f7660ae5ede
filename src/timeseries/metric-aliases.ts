import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import type { DataScope } from './scope';

/**
 * Readable metric names (issue 23 §6, docs/data-store.md "Devices by name"). A metric is a device id; a caller with a
 * project (a user token, a device) may also name a device it may read as `<groupid>/<alias>`, or by its bare alias
 * when that alias is unique among the devices it may read. A name of the UUID form is always a device id, never
 * an alias, so a KairosDB client sending ids is never affected; a name that matches nothing the caller may read is
 * left as it is, and refused like any other metric outside its scope (nothing reveals a device beyond it).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The readable name of a device in listings: unambiguous, since a group id holds no `/`. */
export const qualifiedName = (device: Pick<Device, 'groupid' | 'alias'>) => `${device.groupid}/${device.alias}`;

const projectOf = (scope: DataScope) =>
  scope.kind === 'user' ? scope.projectid : scope.kind === 'device' ? scope.device.projectid : undefined;

const readableBy = (scope: DataScope, device: Device) =>
  scope.kind !== 'device' || device.groupid === scope.device.groupid;

/** The device id `name` stands for in the caller's scope, or undefined when it names no device the caller may read. */
async function deviceIdOf(devices: DeviceStore, scope: DataScope, name: string): Promise<string | undefined> {
  const projectid = projectOf(scope);
  if (projectid === undefined || UUID.test(name)) return undefined;
  const slash = name.indexOf('/');
  const groupid = slash > 0 ? name.slice(0, slash) : undefined;
  const qualified = groupid === undefined ? [] : await devices.findDevicesByAlias(projectid, name.slice(slash + 1));
  const inGroup = qualified.filter((d) => d.groupid === groupid && readableBy(scope, d));
  if (inGroup.length > 0) return inGroup[0].deviceid;
  const bare = (await devices.findDevicesByAlias(projectid, name)).filter((d) => readableBy(scope, d));
  if (bare.length > 1) {
    throw new AppError('METRIC_AMBIGUOUS', `metric "${name}" is the alias of ${bare.length} devices you may read; name one as ${bare.map((d) => `"${qualifiedName(d)}"`).join(' or ')}, or by its id`);
  }
  return bare[0]?.deviceid;
}

/** A query body with its metrics named by device id, and how to give the answer back the names the caller used. */
export interface NamedQuery {
  readonly body: unknown;
  /** The answer's result names, back to the names the query used (results of metric i are named after metric i). */
  renamed<A extends { readonly queries: readonly { readonly results: readonly { readonly name: string }[] }[] }>(answer: A): A;
}

/** Replaces readable names in `body.metrics[].name` by device ids; a body of another shape is handed on unchanged. */
export async function namedQuery(devices: DeviceStore, scope: DataScope, body: unknown): Promise<NamedQuery> {
  const metrics = (body as { metrics?: unknown } | null)?.metrics;
  const asked = Array.isArray(metrics) ? metrics.map((m) => (typeof m?.name === 'string' ? (m.name as string) : undefined)) : [];
  const ids = await Promise.all(asked.map((name) => (name === undefined ? undefined : deviceIdOf(devices, scope, name))));
  if (ids.every((id) => id === undefined)) return { body, renamed: (answer) => answer };
  const rewritten = {
    ...(body as object),
    metrics: (metrics as unknown[]).map((m, i) => (ids[i] === undefined ? m : { ...(m as object), name: ids[i] })),
  };
  return {
    body: rewritten,
    renamed: (answer) => ({
      ...answer,
      queries: answer.queries.map((q, i) => (ids[i] === undefined ? q : {
        ...q,
        results: q.results.map((r) => (r.name === ids[i] ? { ...r, name: asked[i] } : r)),
      })),
    }),
  };
}
