import { Datatag } from './codecs';

/** Whose datatags: one device's own, or the default of a group (for its devices that have none of their own). */
export type DatatagOwner = { deviceid: string } | { projectid: string; groupid: string };

/** One key per owner, as the stores and the caches write it; `/` cannot occur in a project id, so it is unambiguous. */
export const ownerKeyOf = (owner: DatatagOwner) =>
  ('deviceid' in owner ? `device:${owner.deviceid}` : `group:${owner.projectid}/${owner.groupid}`);

/**
 * Where datatags live (netpie reference §7.3), one record per (owner, attr). Like schemas, the store does not know
 * devices: callers check that a device exists.
 */
export interface DatatagStore {
  /** The owner's tags ordered by attr; empty when it has none. */
  listDatatags(owner: DatatagOwner): Promise<Datatag[]>;
  /** Replaces the owner's whole list (an empty one removes them all). */
  replaceDatatags(owner: DatatagOwner, tags: readonly Datatag[]): Promise<void>;
  /** Adds or replaces one tag, by its attr. */
  putDatatag(owner: DatatagOwner, tag: Datatag): Promise<void>;
  /** False when there was none. */
  deleteDatatag(owner: DatatagOwner, attr: string): Promise<boolean>;
}
