import { expect } from 'chai';
import { parseCommand, UsageError } from '../../src/cli/commands';

describe('openpie CLI commands', () => {
  it('turns devices create into the admin create call', () => {
    expect(parseCommand(['devices', 'create', '--project', 'p', '--group', 'g', '--alias', 'lamp', '--livenessttl', '60']))
      .to.deep.equal({ method: 'POST', path: '/v2/admin/devices', body: { projectid: 'p', groupid: 'g', alias: 'lamp', livenessttl: 60 } });
  });

  it('builds list filters, updates, rotation, deletion and user tokens', () => {
    expect(parseCommand(['devices', 'list', '--project', 'p']).path).to.equal('/v2/admin/devices?projectid=p');
    expect(parseCommand(['devices', 'update', 'abc', '--enabled', 'false'])).to.deep.equal({
      method: 'PATCH', path: '/v2/admin/devices/abc', body: { enabled: false },
    });
    expect(parseCommand(['devices', 'rotate-token', 'abc'])).to.deep.equal({ method: 'POST', path: '/v2/admin/devices/abc/token' });
    expect(parseCommand(['devices', 'delete', 'abc']).method).to.equal('DELETE');
    expect(parseCommand(['tokens', 'issue', '--project', 'p', '--ttl', '60']).body).to.deep.equal({ projectid: 'p', ttl: 60 });
  });

  it('refuses missing options, bad values and unknown commands with a usage error', () => {
    expect(() => parseCommand(['devices', 'create', '--project', 'p'])).to.throw(UsageError, /--group/);
    expect(() => parseCommand(['devices', 'update', 'abc', '--enabled', 'yes'])).to.throw(UsageError, /true or false/);
    expect(() => parseCommand(['devices', 'show'])).to.throw(UsageError, /deviceid/);
    expect(() => parseCommand(['fly'])).to.throw(UsageError, /unknown command/);
    expect(() => parseCommand(['devices', 'list', '--colour', 'red'])).to.throw(UsageError);
  });
});
