import { Application } from './application';

/** What an update may change of a stored key; the key, project and creation time never change. */
export type ApplicationChanges = Partial<Pick<Application, 'name' | 'groups' | 'enabled' | 'secret'>>;

/**
 * Where application keys live, shared by every node (the SQLite database, or Cassandra). `secret` is the kept digest
 * (devices/credential-key.ts); an adapter never sees a secret in the clear.
 */
export interface ApplicationStore {
  /** The key's record, read at every log-in with it (no cache: a revocation or rotation holds at once on every node). */
  get(key: string): Promise<Application | undefined>;
  /** Of one project, or of every project; sorted by project, then creation time, then key. */
  list(filter: { projectid?: string }): Promise<Application[]>;
  /** False when the key exists already (a UUID clash: never in practice, but never an overwrite either). */
  insert(app: Application): Promise<boolean>;
  /** Changes only the members given, so a rotation and a concurrent rename both hold; false when there is no such key. */
  update(key: string, changes: ApplicationChanges): Promise<boolean>;
  /** False when there was no such key. */
  delete(key: string): Promise<boolean>;
}

/** Live MQTT connections of an application key, on every node, so that a change to the key cuts them off. */
export interface ApplicationSessions {
  disconnect(key: string, reason: string): void;
}
