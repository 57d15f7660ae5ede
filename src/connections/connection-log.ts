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

/**
 * A Map keeps its keys in insertion order: a device is taken out and put back with each event, so the first key is
 * always the device whose last event is the oldest, the one evicted when the log is full.
 */
export function createConnectionLog({ nodeId, limits, now }: ConnectionLogOptions): ConnectionLog {
  const byDevice = new Map<string, ConnectionEvent[]>();
  return {
    nodeId,
    record(deviceid, event) {
      const events = byDevice.get(deviceid) ?? [];
      byDevice.delete(deviceid);
      const detail = event.detail === undefined ? {} : { detail: event.detail.slice(0, limits.detailLength) };
      events.push({ at: new Date(now()).toISOString(), node: nodeId, ...event, ...detail });
      if (events.length > limits.eventsPerDevice) events.splice(0, events.length - limits.eventsPerDevice);
      byDevice.set(deviceid, events);
      if (byDevice.size > limits.devices) byDevice.delete(byDevice.keys().next().value as string);
    },
    historyOf: (deviceid) => [...(byDevice.get(deviceid) ?? [])].reverse(),
  };
}
