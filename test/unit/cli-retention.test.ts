import { expect } from 'chai';
import { parseCommand, UsageError } from '../../src/cli/commands';

describe('openpie retention (issue 23 §2)', () => {
  it("turns show, set and clear into calls on the project's retention", () => {
    expect(parseCommand(['retention', 'show', '--project', 'p'])).to.deep.equal({ method: 'GET', path: '/v2/admin/projects/p/retention' });
    expect(parseCommand(['retention', 'set', '30d', '--project', 'p'])).to.deep.equal({
      method: 'PUT', path: '/v2/admin/projects/p/retention', body: { retention: '30d' },
    });
    expect(parseCommand(['retention', 'clear', '--project', 'p'])).to.deep.equal({ method: 'DELETE', path: '/v2/admin/projects/p/retention' });
  });

  it('wants a project, and exactly one duration to set', () => {
    expect(() => parseCommand(['retention', 'show'])).to.throw(UsageError, /--project/);
    expect(() => parseCommand(['retention', 'set', '--project', 'p'])).to.throw(UsageError, /<duration>/);
    expect(() => parseCommand(['retention', 'set', '1d', '2d', '--project', 'p'])).to.throw(UsageError, /<duration>/);
  });
});
