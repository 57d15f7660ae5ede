import { Shadow } from './shadow';

/** Where shadows live. A device's shadow is deleted together with the device (see DeviceStore). */
export interface ShadowStore {
  /** Undefined when the device's shadow was never written. */
  readShadow(deviceid: string): Promise<Shadow | undefined>;
  /**
   * Stores `next` only if the stored rev is still `expectedRev` (0 = no shadow stored yet), so concurrent writers
   * never lose each other's changes. Returns false when another writer got there first. Throws
   * AppError('DEVICE_NOT_FOUND') when the device is gone.
   */
  compareAndSetShadow(next: Shadow, expectedRev: number): Promise<boolean>;
}
