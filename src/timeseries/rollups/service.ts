import { RollupDeclarations } from './declarations';
import { RollupMaintainer } from './maintainer';
import { RollupDeclaration, RollupTier, tierText } from './tiers';

/** A project's roll-ups as the admin API answers them. */
export interface RollupReport {
  readonly projectid: string;
  readonly tiers: readonly { readonly period: string; readonly retention: string }[];
  /** `none`: no tiers; `building`: rolling up the stored history, queries read raw points; `ready`: tiers answer. */
  readonly status: 'none' | 'building' | 'ready';
}

/** The roll-up declaration of a project (issue 23 §3): read, replace (then built in the background), remove. */
export interface RollupService {
  report(projectid: string): Promise<RollupReport>;
  declare(projectid: string, tiers: readonly RollupTier[]): Promise<RollupReport>;
  /** Whether the project had roll-ups; their tier points are deleted in the background. */
  clear(projectid: string): Promise<boolean>;
}

const reportOf = (projectid: string, declaration: RollupDeclaration | undefined): RollupReport => ({
  projectid,
  tiers: (declaration?.tiers ?? []).map(tierText),
  status: declaration === undefined ? 'none' : declaration.builtAt === undefined ? 'building' : 'ready',
});

export function createRollupService(declarations: RollupDeclarations, maintainer: Pick<RollupMaintainer, 'rebuild' | 'drop'>): RollupService {
  return {
    report: async (projectid) => reportOf(projectid, await declarations.declarationOf(projectid)),
    async declare(projectid, tiers) {
      const { previous, declaration } = await declarations.declare(projectid, tiers);
      const periods = new Set(tiers.map((tier) => tier.periodMs));
      void maintainer.rebuild(projectid, declaration, (previous?.tiers ?? []).filter((tier) => !periods.has(tier.periodMs)));
      return reportOf(projectid, declaration);
    },
    async clear(projectid) {
      const previous = await declarations.remove(projectid);
      if (previous !== undefined) void maintainer.drop(projectid, previous.tiers);
      return previous !== undefined;
    },
  };
}
