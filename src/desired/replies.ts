import { warningMembers } from '../schema/warnings';
import { DesiredView, DesiredWriteResult } from './service';

/**
 * The desired document as every transport answers with it: `desired` and `delta` side by side (AWS IoT's `state.desired`
 * and `state.delta`), `rev` the desired document's own, `datarev` the rev of `data` the delta was computed against.
 */
export const desiredReply = ({ state, delta, datarev }: DesiredView) => ({
  deviceid: state.deviceid,
  desired: state.desired,
  delta,
  rev: state.rev,
  datarev,
  modified: state.modified,
});

/** The reply to a desired write: as a read, and what the schema changed. */
export const desiredWriteReply = (result: DesiredWriteResult) => ({ ...desiredReply(result), ...warningMembers(result.warnings) });
