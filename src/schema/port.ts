import { ShadowSchema } from './codecs';

/** Whose schema: one device's own, or the default of a group (used by its devices that have none of their own). */
export type SchemaOwner = { deviceid: string } | { projectid: string; groupid: string };

/**
 * Where schemas live. The store does not know devices: callers check that a device exists (its rows outlive it
 * unread, since device ids are never reused).
 */
export interface SchemaStore {
  getSchema(owner: SchemaOwner): Promise<ShadowSchema | undefined>;
  putSchema(owner: SchemaOwner, schema: ShadowSchema): Promise<void>;
  /** False when there was none. */
  deleteSchema(owner: SchemaOwner): Promise<boolean>;
}
