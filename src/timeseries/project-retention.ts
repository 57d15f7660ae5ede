/**
 * A project's own retention (issue 23 §2), the middle level of three: one duration per project, in the registry's
 * store so that every node reads the same (SQLite `project_retention`, Cassandra `project_retention`).
 */
export interface ProjectRetentionStore {
  /** The project's retention in ms; undefined when it has none of its own (the service default applies). */
  getRetention(projectid: string): Promise<number | undefined>;
  putRetention(projectid: string, retentionMs: number): Promise<void>;
  /** Whether the project had one. */
  deleteRetention(projectid: string): Promise<boolean>;
}
