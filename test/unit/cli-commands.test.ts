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
    expect(parseCommand(['tokens', 'issue', '--project', 'p', '--scope', 'write']).body).to.deep.equal({ projectid: 'p', scope: 'write' });
    expect(parseCommand(['tokens', 'issue', '--project', 'p', '--grants', 'fleet, desired']).body).to.deep.equal({ projectid: 'p', grants: ['fleet', 'desired'] });
    expect(parseCommand(['tokens', 'revoke', '3f0c5a52-8d7e-4c1b-9a4e-2b6f1d0c7e95'])).to.deep.equal({
      method: 'DELETE', path: '/v2/admin/tokens/3f0c5a52-8d7e-4c1b-9a4e-2b6f1d0c7e95',
    });
  });

  it('reads shadows, queries the fleet and writes desired state', () => {
    expect(parseCommand(['shadows', 'show', 'abc', '--at', '2026-11-28T06:00:00Z'])).to.deep.equal({
      method: 'GET', path: '/v2/admin/devices/abc/shadow?at=2026-11-28T06%3A00%3A00Z',
    });
    expect(parseCommand(['shadows', 'query', '--project', 'p', '--filter', '$.battery < 20', '--fields', 'battery, fw', '--sort', 'battery:desc', '--limit', '5'])).to.deep.equal({
      method: 'POST',
      path: '/v2/admin/projects/p/shadows/query',
      body: { filter: '$.battery < 20', fields: ['battery', 'fw'], sort: { field: 'battery', order: 'desc' }, limit: 5 },
    });
    expect(parseCommand(['shadows', 'query', '--project', 'p', '--sort', '$device.alias', '--group', 'g']).body).to.deep.equal({
      groupid: 'g', sort: { field: '$device.alias' },
    });
    expect(parseCommand(['desired', 'set', 'abc', '--json', '{"data":{"mode":"eco"}}'])).to.deep.equal({
      method: 'PUT', path: '/v2/admin/devices/abc/shadow/desired', body: { data: { mode: 'eco' } },
    });
    expect(parseCommand(['desired', 'set', 'abc', '--json', '{"data":{}}', '--overwrite']).method).to.equal('POST');
    expect(() => parseCommand(['shadows', 'query'])).to.throw(UsageError, /--project/);
    expect(() => parseCommand(['desired', 'set', 'abc'])).to.throw(UsageError, /--json or --file/);
  });

  it('refuses missing options, bad values and unknown commands with a usage error', () => {
    expect(() => parseCommand(['devices', 'create', '--project', 'p'])).to.throw(UsageError, /--group/);
    expect(() => parseCommand(['devices', 'update', 'abc', '--enabled', 'yes'])).to.throw(UsageError, /true or false/);
    expect(() => parseCommand(['devices', 'show'])).to.throw(UsageError, /deviceid/);
    expect(() => parseCommand(['tokens', 'revoke'])).to.throw(UsageError, /jti/);
    expect(() => parseCommand(['fly'])).to.throw(UsageError, /unknown command/);
    expect(() => parseCommand(['devices', 'list', '--colour', 'red'])).to.throw(UsageError);
  });

  describe('schemas, triggers, hooks, deliveries and quotas (issue 5)', () => {
    const files = { readFile: (path: string) => (path === 'schema.json' ? '{"properties":{"t":{"type":"number"}}}' : '[1]') };

    it('turns schema commands into calls on a device or on a group default', () => {
      expect(parseCommand(['schema', 'set', 'abc', '--file', 'schema.json'], files)).to.deep.equal({
        method: 'PUT', path: '/v2/admin/devices/abc/schema', body: { properties: { t: { type: 'number' } } },
      });
      expect(parseCommand(['schema', 'show', '--project', 'p', '--group', 'g'])).to.deep.equal({ method: 'GET', path: '/v2/admin/projects/p/groups/g/schema' });
      expect(parseCommand(['schema', 'delete', 'abc'])).to.deep.equal({ method: 'DELETE', path: '/v2/admin/devices/abc/schema' });
      expect(parseCommand(['schema', 'set', '--project', 'p', '--group', 'g', '--json', '{"properties":{}}']).body).to.deep.equal({ properties: {} });
    });

    it('turns trigger, hook and delivery commands into their calls', () => {
      expect(parseCommand(['triggers', 'set', 'abc', '--json', '{"trigger":[]}'])).to.deep.equal({
        method: 'PUT', path: '/v2/admin/devices/abc/triggers', body: { trigger: [] },
      });
      expect(parseCommand(['triggers', 'show', 'abc']).path).to.equal('/v2/admin/devices/abc/triggers');
      expect(parseCommand(['triggers', 'delete', 'abc']).method).to.equal('DELETE');
      expect(parseCommand(['hooks', 'list', '--project', 'p'])).to.deep.equal({ method: 'GET', path: '/v2/admin/projects/p/hooks' });
      expect(parseCommand(['hooks', 'set', 'alert', '--project', 'p', '--json', '{"type":"MESSAGE"}'])).to.deep.equal({
        method: 'PUT', path: '/v2/admin/projects/p/hooks/alert', body: { type: 'MESSAGE' },
      });
      expect(parseCommand(['hooks', 'delete', 'alert', '--project', 'p']).path).to.equal('/v2/admin/projects/p/hooks/alert');
      expect(parseCommand(['deliveries', 'list', '--project', 'p', '--device', 'abc', '--limit', '5']).path)
        .to.equal('/v2/admin/projects/p/deliveries?deviceid=abc&limit=5');
    });

    it('reads and sets quota limits, "unlimited" meaning none', () => {
      expect(parseCommand(['quotas', 'show', '--project', 'p', '--month', '2025-01']).path).to.equal('/v2/admin/projects/p/quotas?month=2025-01');
      expect(parseCommand(['quotas', 'set', '--project', 'p', '--shadow-ops', '500000', '--messages', 'unlimited', '--api-calls', '10'])).to.deep.equal({
        method: 'PUT', path: '/v2/admin/projects/p/quotas', body: { shadowOps: 500000, messages: null, apiCalls: 10 },
      });
    });

    it('refuses missing or bad bodies and options with a usage error', () => {
      expect(() => parseCommand(['schema', 'set', 'abc'])).to.throw(UsageError, /--json or --file/);
      expect(() => parseCommand(['schema', 'set', 'abc', '--json', '{}', '--file', 'x'])).to.throw(UsageError, /one of them/);
      expect(() => parseCommand(['schema', 'set', 'abc', '--json', '{oops'])).to.throw(UsageError, /--json is not valid JSON/);
      expect(() => parseCommand(['triggers', 'set', 'abc', '--file', 'list.json'], files)).to.throw(UsageError, /JSON object/);
      expect(() => parseCommand(['triggers', 'set', 'abc', '--file', 'missing.json'])).to.throw(UsageError, /--file missing\.json/);
      expect(() => parseCommand(['schema', 'show', 'abc', '--project', 'p', '--group', 'g'])).to.throw(UsageError, /not both/);
      expect(() => parseCommand(['schema', 'show', '--project', 'p'])).to.throw(UsageError, /--group/);
      expect(() => parseCommand(['hooks', 'show', '--project', 'p'])).to.throw(UsageError, /<name>/);
      expect(() => parseCommand(['hooks', 'list'])).to.throw(UsageError, /--project/);
      expect(() => parseCommand(['quotas', 'set', '--project', 'p', '--messages', 'lots'])).to.throw(UsageError, /--messages must be a whole number/);
      expect(() => parseCommand(['deliveries', 'list', '--project', 'p', '--limit', '-1'])).to.throw(UsageError);
    });
  });

  describe('bringing credentials (issue 18)', () => {
    const files = { readFile: (path: string) => `contents of ${path}` };

    it('passes given credentials to devices create', () => {
      expect(parseCommand(['devices', 'create', '--project', 'p', '--group', 'g', '--alias', 'a', '--deviceid', 'id', '--token', 't', '--secret', 's']).body)
        .to.deep.equal({ projectid: 'p', groupid: 'g', alias: 'a', deviceid: 'id', token: 't', secret: 's' });
    });

    it('imports a file as it is, a dry run unless --apply, CSV by its extension or --format', () => {
      expect(parseCommand(['devices', 'import', '--file', 'fleet.csv'], files)).to.deep.equal({
        method: 'POST', path: '/v2/admin/devices/import?dryRun=true', raw: { contentType: 'text/csv', text: 'contents of fleet.csv' },
      });
      expect(parseCommand(['devices', 'import', '--file', 'fleet.json', '--apply'], files)).to.deep.equal({
        method: 'POST', path: '/v2/admin/devices/import', raw: { contentType: 'application/json', text: 'contents of fleet.json' },
      });
      expect(parseCommand(['devices', 'import', '--file', 'export.txt', '--format', 'csv'], files).raw?.contentType).to.equal('text/csv');
      expect(() => parseCommand(['devices', 'import'], files)).to.throw(UsageError, /--file/);
      expect(() => parseCommand(['devices', 'import', '--file', 'f', '--format', 'xml'], files)).to.throw(UsageError, /csv or json/);
    });
  });
});
