import { ConnectionEvent } from './codecs';
import { ConnectionLogLimits } from './limits';

/** An event as the broker or the inspector reports it: the log adds when and where. */
export type NewConnectionEvent = Omit<ConnectionEvent, 'at' | 'node'>;

/** One node's recent connection history, per device, bounded (limits.ts). */
export interface ConnectionLog {
  readonly nodeId: string;
  record(deviceid: string, event: NewConnectionEvent): void;
  /** The device's events on this node, newest first. */
  historyOf(deviceid: string): ConnectionEvent[];
}

export interface ConnectionLogOptions {
  nodeId: string;
  limits: Pick<ConnectionLogLimits, 'eventsPerDevice' | 'devices' | 'detailLength'>;
  now: () => number;
}

/** An event as kept: its time in ms, made an ISO 8601 string only when the history is read (every CONNECT records). */
interface Kept {
  at: number;
  event: NewConnectionEvent;
}

/**
 * A Map keeps its keys in insertion order: a device is taken out and put back with each event, so the first key is
 * always the device whose last event is the oldest, the one evicted when the log is full.
 */
export function createConnectionLog({ nodeId, limits, now }: ConnectionLogOptions): ConnectionLog {
  const byDevice = new Map<string, Kept[]>();
  return {
    nodeId,
    record(deviceid, event) {
      const events = byDevice.get(deviceid) ?? [];
      byDevice.delete(deviceid);
      const detail = event.detail;
      events.push({ at: now(), event: detail === undefined || detail.length <= limits.detailLength ? event : { ...event, detail: detail.slice(0, limits.detailLength) } });
      if (events.length > limits.eventsPerDevice) events.splice(0, events.length - limits.eventsPerDevice);
      byDevice.set(deviceid, events);
      if (byDevice.size > limits.devices) byDevice.delete(byDevice.keys().next().value as string);
    },
    historyOf: (deviceid) =>
      (byDevice.get(deviceid) ?? []).map(({ at, event }) => ({ at: new Date(at).toISOString(), node: nodeId, ...event })).reverse(),
  };
}
