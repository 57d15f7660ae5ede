import { RollupDeclaration } from './tiers';

/**
 * Projects' roll-up declarations (issue 23 §3), in the registry's store so that every node reads the same (SQLite
 * `rollups`, Cassandra `rollups`).
 */
export interface RollupStore {
  getRollups(projectid: string): Promise<RollupDeclaration | undefined>;
  /** Replaces the project's declaration (`builtAt` as given). */
  putRollups(projectid: string, declaration: RollupDeclaration): Promise<void>;
  /** Sets `builtAt` when the declaration is still the one declared at `declaredAt`; whether it was. */
  markBuilt(projectid: string, declaredAt: number, builtAt: number): Promise<boolean>;
  /** Whether the project had one. */
  deleteRollups(projectid: string): Promise<boolean>;
  /** Projects whose declaration is not built yet (a node resumes their build at start). */
  listUnbuilt(): Promise<string[]>;
}
