/**
 * Just enough of a Dockerfile reader for the deployment tests: stages, instructions with their continuation lines
 * joined and comments dropped (as the Dockerfile reference describes), exec forms decoded as JSON.
 */
export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const match = /^(\S+)\s*(.*)$/s.exec(line);
    if (match === null) continue;
    const keyword = match[1].toUpperCase();
    const args = match[2].trim();
    if (keyword === 'FROM') {
      const [base, as, name] = args.split(/\s+/).filter((word) => !word.startsWith('--'));
      stages.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      throw new Error(`${keyword} before the first FROM`);
    } else {
      stages[stages.length - 1].instructions.push({ keyword, args });
    }
  }
  return stages;
}

/** Lines ending in a backslash continue on the next; comment lines vanish, even inside a continuation. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
    } else {
      lines.push(pending + line);
      pending = '';
    }
  }
  if (pending !== '') lines.push(pending);
  return lines;
}

export function instructions(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword);
}

/** CMD, ENTRYPOINT and HEALTHCHECK CMD in exec form (a JSON array), e.g. `["node", "dist/src/main.js"]`. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) {
    throw new Error(`not an exec form: ${args}`);
  }
  return parsed;
}

export interface Copy {
  /** The stage named by --from, or undefined when the files come from the build context. */
  from: string | undefined;
  sources: string[];
  destination: string;
}

export function copies(stage: Stage): Copy[] {
  return instructions(stage, 'COPY').map(({ args }) => {
    const words = args.split(/\s+/);
    const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
    const paths = words.filter((word) => !word.startsWith('--'));
    return { from, sources: paths.slice(0, -1), destination: paths[paths.length - 1] };
  });
}
