import { Device } from '../devices/device';
import { Json, JsonObject } from '../core/json';
import { EventName } from './codecs';

/** What happened to the device, as the variables of netpie reference §8.1 name its sides. */
export interface EventSides {
  /** `$NEW`: what a shadow write stored (its fields only), `{STATUS, STATUSTEXT}` of a status change, or a push. */
  new: JsonObject;
  /** `$PREV` (also `$OLD`): the shadow before the write, or the status before the change. */
  previous: JsonObject;
  /** `$CUR`: the shadow after the write; the new status for a status change. */
  current: JsonObject;
  /** `$TIMESTAMP`: the data time of the write, or the time of the status change or push. */
  timestamp: number;
}

export const statusSide = (online: boolean): JsonObject => ({ STATUS: online ? 1 : 0, STATUSTEXT: online ? 'online' : 'offline' });

/**
 * The variables of one trigger's condition and templates. There are no project or group names, so `$PROJECTNAME`
 * and `$GROUPNAME` are the ids, and `$BILLINGID` is the project id.
 */
export function eventVariables(device: Device, event: EventName, sides: EventSides, triggerid: string): Map<string, Json> {
  return new Map<string, Json>([
    ['$NEW', sides.new],
    ['$PREV', sides.previous],
    ['$OLD', sides.previous],
    ['$CUR', sides.current],
    ['$DEVICEID', device.deviceid],
    ['$ALIAS', device.alias],
    ['$PROJECTID', device.projectid],
    ['$PROJECTNAME', device.projectid],
    ['$GROUPID', device.groupid],
    ['$GROUPNAME', device.groupid],
    ['$BILLINGID', device.projectid],
    ['$EVENT', event],
    ['$TRIGGERID', triggerid],
    ['$TIMESTAMP', sides.timestamp],
  ]);
}
