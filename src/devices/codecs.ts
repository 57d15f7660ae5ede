import * as t from 'io-ts';
import { closed, intBetween, intStringBetween, ScopeId, stringMatching, wellFormed } from '../core/codecs';

/** 1-128 characters without control characters; unique within a group. */
export const Alias = wellFormed(stringMatching('alias', /^(?=.*\S)[^\u0000-\u001f\u007f]{1,128}$/u,
  'expected 1-128 characters, not blank, without control characters'));

export const Description = wellFormed(stringMatching('description', /^[^\u0000-\u0008\u000b-\u001f\u007f]{0,1024}$/u,
  'expected at most 1024 characters without control characters'));

/** Seconds, at most 7 days; 0 turns liveness off. */
export const LivenessTtl = intBetween(0, 604_800);

export const CreateDeviceRequest = closed(
  { projectid: ScopeId, groupid: ScopeId, alias: Alias },
  { description: Description, enabled: t.boolean, livenessttl: LivenessTtl },
);
export type CreateDeviceRequest = t.TypeOf<typeof CreateDeviceRequest>;

export const UpdateDeviceRequest = closed(
  {},
  { alias: Alias, groupid: ScopeId, enabled: t.boolean, banned: t.boolean, description: Description, livenessttl: LivenessTtl },
);
export type UpdateDeviceRequest = t.TypeOf<typeof UpdateDeviceRequest>;

/**
 * `GET /v2/admin/devices`: a project and group; `q`, part of an alias (any case) or the start of a device id; a page
 * of `limit` devices (1-1000; all when absent) from `offset`.
 */
export const DeviceListQuery = closed({}, {
  projectid: ScopeId,
  groupid: ScopeId,
  q: stringMatching('search', /^.{1,128}$/su, 'expected 1-128 characters'),
  limit: intStringBetween(1, 1000),
  offset: intStringBetween(0, 1_000_000_000),
});
export type DeviceListQuery = t.TypeOf<typeof DeviceListQuery>;
