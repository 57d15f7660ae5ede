import { warningMembers } from '../schema/warnings';
import { RevisionsPage } from './history-service';
import { WriteResult } from './service';
import { Shadow } from './shadow';

/**
 * The shadow as every transport answers with it (spec 4.4, netpie reference §3.4, §4): `deviceid` and `data` first,
 * as hobby clients expect. REST puts `status: 200` before it; CoAP and MQTT carry the status in the packet.
 */
export const shadowReply = (s: Shadow) => ({ deviceid: s.deviceid, data: s.data, rev: s.rev, modified: s.modified, timestamp: s.timestamp });

/** The reply to a single shadow write: the shadow, whether the write applied, and what the schema changed. */
export const shadowWriteReply = (result: WriteResult) => ({
  ...shadowReply(result.shadow),
  applied: result.applied,
  ...warningMembers(result.warnings),
});


/** A page of the shadow's history (docs/device-api.md "Shadow history"): each revision as the shadow reply, newest first. */
export const revisionsReply = (page: RevisionsPage) => ({
  deviceid: page.deviceid,
  revisions: page.revisions.map(shadowReply),
  ...(page.next !== undefined ? { next: page.next } : {}),
});
