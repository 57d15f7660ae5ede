import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_VARIABLES } from '../../src/config/config';

/**
 * docs/operations.md "Configuration" is the operator's reference: one row per variable the service reads (issue 19).
 * A row's first cell names its variables in code spans (`CASSANDRA_USERNAME`, `CASSANDRA_PASSWORD` share one); its
 * second cell starts with the default, in a code span, when the variable has one.
 */
interface Row {
  readonly names: readonly string[];
  readonly defaultCell: string;
}

function configurationTable(): Row[] {
  const text = readFileSync(join(resolve(__dirname, '..', '..'), 'docs', 'operations.md'), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Configuration\n'));
  if (section === undefined) throw new Error('docs/operations.md has no "## Configuration" section');
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variables, defaultCell] = line.split('|').slice(1, 3).map((cell) => cell.trim());
      return { names: [...variables.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]), defaultCell };
    });
}

describe('docs/operations.md "Configuration"', () => {
  const rows = configurationTable();
  const documented = rows.flatMap((row) => row.names);

  it('lists every variable the service reads', () => {
    expect(CONFIG_VARIABLES.map((v) => v.name).filter((name) => !documented.includes(name))).to.deep.equal([]);
  });

  it('lists each variable once', () => {
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).to.deep.equal([]);
  });

  it('lists no variable the service does not read', () => {
    const read = new Set(CONFIG_VARIABLES.map((v) => v.name));
    expect(documented.filter((name) => !read.has(name))).to.deep.equal([]);
  });

  it('gives each variable the default the service uses', () => {
    const wrong = CONFIG_VARIABLES.filter((v) => v.default !== undefined && v.default !== '').flatMap((v) => {
      const row = rows.find((r) => r.names.includes(v.name));
      return row === undefined || row.defaultCell.startsWith(`\`${v.default}\``) ? [] : [`${v.name}: ${row.defaultCell} (the service: ${v.default})`];
    });
    expect(wrong).to.deep.equal([]);
  });
});
