import type { Context } from 'koa';
import { closed, ScopeId } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { Registry } from '../devices/service';
import { requireProject, requireProjectOf } from '../operators/access';

/**
 * What an admin route's path names, checked against the caller's projects (operators/access.ts): a project, a group
 * of a project, or a device (whose project is looked up for callers limited to some projects only).
 */
const ProjectPath = closed({ projectid: ScopeId });
const GroupPath = closed({ projectid: ScopeId, groupid: ScopeId });

/** The path's `:projectid`, which the caller must reach. */
export const projectOf = (ctx: Context): string => {
  const { projectid } = decodeOrThrow(ProjectPath, { projectid: ctx.params.projectid }, 'INVALID_QUERY');
  requireProject(ctx, projectid);
  return projectid;
};

/** The path's `:projectid` and `:groupid`, whose project the caller must reach. */
export const groupOf = (ctx: Context): { projectid: string; groupid: string } => {
  const group = decodeOrThrow(GroupPath, { projectid: ctx.params.projectid, groupid: ctx.params.groupid }, 'INVALID_QUERY');
  requireProject(ctx, group.projectid);
  return group;
};

/** The path's `:deviceid`, once its project is known to be the caller's. */
export const deviceOfPath = (registry: Pick<Registry, 'getDevice'>) => async (ctx: Context): Promise<string> => {
  const { deviceid } = ctx.params;
  await requireProjectOf(ctx, async () => (await registry.getDevice(deviceid)).projectid);
  return deviceid;
};
