import { expect } from 'chai';
import { parseCommand, UsageError } from '../../src/cli/commands';

describe('openpie rollups (issue 23 §3)', () => {
  it("turns show, set and clear into calls on the project's roll-up tiers", () => {
    expect(parseCommand(['rollups', 'show', '--project', 'p'])).to.deep.equal({ method: 'GET', path: '/v2/admin/projects/p/rollups' });
    expect(parseCommand(['rollups', 'set', '1m=30d', '1h=unlimited', '--project', 'p'])).to.deep.equal({
      method: 'PUT', path: '/v2/admin/projects/p/rollups', body: { tiers: [{ period: '1m', retention: '30d' }, { period: '1h', retention: 'unlimited' }] },
    });
    expect(parseCommand(['rollups', 'clear', '--project', 'p'])).to.deep.equal({ method: 'DELETE', path: '/v2/admin/projects/p/rollups' });
  });

  it('wants a project, and tiers written <period>=<retention>', () => {
    expect(() => parseCommand(['rollups', 'show'])).to.throw(UsageError, /--project/);
    expect(() => parseCommand(['rollups', 'set', '--project', 'p'])).to.throw(UsageError, /<period>=<retention>/);
    expect(() => parseCommand(['rollups', 'set', '1h', '--project', 'p'])).to.throw(UsageError, /<period>=<retention>/);
    expect(() => parseCommand(['rollups', 'set', '1h=1d=2d', '--project', 'p'])).to.throw(UsageError, /<period>=<retention>/);
  });
});
