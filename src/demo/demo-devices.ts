import { Device } from '../devices/device';
import { Registry } from '../devices/service';

/** The demo project: one group, a sensor that streams readings and a lamp to read, write and message. */
export const DEMO_PROJECT = { projectid: 'demo', groupid: 'demo', sensor: 'demo-sensor', lamp: 'demo-lamp' } as const;

export interface DemoDevices {
  sensor: Device;
  lamp: Device;
  /** Made by this call: the first demo start on this DATA_DIR (the registry lives there). */
  sensorIsNew: boolean;
  lampIsNew: boolean;
}

/** Finds the demo devices, making only the missing ones, so every later start reuses them. */
export async function ensureDemoDevices(registry: Registry): Promise<DemoDevices> {
  const { projectid, groupid } = DEMO_PROJECT;
  const existing = await registry.listDevices({ projectid, groupid });
  const ensure = async (alias: string, description: string): Promise<[Device, boolean]> => {
    const found = existing.find((d) => d.alias === alias);
    if (found) return [found, false];
    return [await registry.createDevice({ projectid, groupid, alias, description }), true];
  };
  const [sensor, sensorIsNew] = await ensure(DEMO_PROJECT.sensor, 'demo: writes temp and humid every few seconds');
  const [lamp, lampIsNew] = await ensure(DEMO_PROJECT.lamp, 'demo: a lamp to read, write and message');
  return { sensor, lamp, sensorIsNew, lampIsNew };
}
