import { expect } from 'chai';
import { parseCommand, UsageError } from '../../src/cli/commands';

describe('openpie datatags (the CLI, issue 23 §1)', () => {
  const files = { readFile: () => '[{"path":"t","type":"number","attr":"t","ttl":"1d"}]' };

  it('sets a device\'s list or a group default from an array, and shows them', () => {
    expect(parseCommand(['datatags', 'set', 'abc', '--file', 'tags.json'], files)).to.deep.equal({
      method: 'PUT', path: '/v2/admin/devices/abc/datatags', raw: { contentType: 'application/json', text: '[{"path":"t","type":"number","attr":"t","ttl":"1d"}]' },
    });
    expect(parseCommand(['datatags', 'show', '--project', 'p', '--group', 'g'])).to.deep.equal({ method: 'GET', path: '/v2/admin/projects/p/groups/g/datatags' });
    expect(() => parseCommand(['datatags', 'set', 'abc', '--json', '{}'])).to.throw(UsageError, /JSON array/);
  });

  it('turns the toggle, delete and clear feed into calls on one attr', () => {
    expect(parseCommand(['datatags', 'disable', 'abc', 'env.temp'])).to.deep.equal({ method: 'PATCH', path: '/v2/admin/devices/abc/datatags/env.temp', body: { enabled: false } });
    expect(parseCommand(['datatags', 'enable', '--project', 'p', '--group', 'g', 't'])).to.deep.equal({ method: 'PATCH', path: '/v2/admin/projects/p/groups/g/datatags/t', body: { enabled: true } });
    expect(parseCommand(['datatags', 'delete', 'abc', 't'])).to.deep.equal({ method: 'DELETE', path: '/v2/admin/devices/abc/datatags/t' });
    expect(parseCommand(['datatags', 'clear', 'abc', 't'])).to.deep.equal({ method: 'POST', path: '/v2/admin/devices/abc/datatags/t/clear' });
  });

  it('edits and deletes one point, a number sent as a number and anything else as text', () => {
    expect(parseCommand(['datatags', 'point-set', 'abc', 't', '1700000000000', '21.5']).body).to.deep.equal({ value: 21.5 });
    expect(parseCommand(['datatags', 'point-set', 'abc', 't', '1700000000000', 'true'])).to.deep.equal({
      method: 'PUT', path: '/v2/admin/devices/abc/datatags/t/points/1700000000000', body: { value: 'true' },
    });
    expect(parseCommand(['datatags', 'point-delete', 'abc', 't', '1700000000000'])).to.deep.equal({ method: 'DELETE', path: '/v2/admin/devices/abc/datatags/t/points/1700000000000' });
  });

  it('refuses a missing attr, extra arguments and point commands on a group', () => {
    expect(() => parseCommand(['datatags', 'enable', 'abc'])).to.throw(UsageError, /takes <deviceid> <attr>/);
    expect(() => parseCommand(['datatags', 'show', 'abc', 'extra'])).to.throw(UsageError, /takes <deviceid>/);
    expect(() => parseCommand(['datatags', 'clear', '--project', 'p', '--group', 'g', 't'])).to.throw(UsageError, /give a <deviceid>/);
  });
});
