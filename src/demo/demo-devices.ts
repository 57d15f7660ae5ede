import { Device } from '../devices/device';
import { Registry } from '../devices/service';

/** The demo project: one group, a sensor that streams readings and a lamp to read, write and message. */
export const DEMO_PROJECT = { projectid: 'demo', groupid: 'demo', sensor: 'demo-sensor', lamp: 'demo-lamp' } as const;

/** A demo device with its token and secret as issued (the registry keeps only their digests). */
export type DemoDevice = Device & { readonly token: string; readonly secret: string };

export interface DemoDevices {
  sensor: DemoDevice;
  lamp: DemoDevice;
  /** Made by this call: the first demo start on this DATA_DIR (the registry lives there). */
  sensorIsNew: boolean;
  lampIsNew: boolean;
}

/**
 * Finds the demo devices, making only the missing ones, so every later start reuses them (their shadows and
 * history). The registry shows credentials only when it issues them, so a later start gives the devices it finds a
 * new token and secret, which the banner prints.
 */
export async function ensureDemoDevices(registry: Registry): Promise<DemoDevices> {
  const { projectid, groupid } = DEMO_PROJECT;
  const existing = await registry.listDevices({ projectid, groupid });
  const ensure = async (alias: string, description: string): Promise<[DemoDevice, boolean]> => {
    const found = existing.find((d) => d.alias === alias);
    if (found) {
      const { issued: { token } } = await registry.rotateToken(found.deviceid);
      const { device, issued: { secret } } = await registry.rotateSecret(found.deviceid);
      return [{ ...device, token: token!, secret: secret! }, false];
    }
    const { device, issued } = await registry.createDevice({ projectid, groupid, alias, description });
    return [{ ...device, token: issued.token!, secret: issued.secret! }, true];
  };
  const [sensor, sensorIsNew] = await ensure(DEMO_PROJECT.sensor, 'demo: writes temp and humid every few seconds');
  const [lamp, lampIsNew] = await ensure(DEMO_PROJECT.lamp, 'demo: a lamp to read, write and message');
  return { sensor, lamp, sensorIsNew, lampIsNew };
}
