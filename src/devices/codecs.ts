import * as t from 'io-ts';
import { closed, intBetween, ScopeId, stringMatching, wellFormed } from '../codecs';

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

export const DeviceListQuery = closed({}, { projectid: ScopeId, groupid: ScopeId });

export const DeviceId = stringMatching('deviceid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  'expected a device id (UUID)');
