import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';
import { openApiDocument } from '../../../src/http/openapi/document';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator } from '../../helpers/openapi';

/** What the console needs to run a fleet (issue 13 §2): search and pages, projects and groups with online counts. */
describe('admin API for a fleet', () => {
  let stack: Stack;
  const projectid = `fleet-${randomUUID().slice(0, 8)}`;
  let devices: TestDevice[];

  before(async () => {
    stack = await startStack();
    devices = [];
    // 25 devices over two groups: a-00 … a-11 in g1, b-12 … b-24 in g2.
    for (let i = 0; i < 25; i++) {
      const alias = `${i < 12 ? 'kitchen' : 'garage'}-${String(i).padStart(2, '0')}`;
      devices.push(await aDevice(stack, { projectid, groupid: i < 12 ? 'g1' : 'g2', alias }));
    }
  });
  after(() => stack.stop());

  const list = (query: string) => stack.admin('GET', `/v2/admin/devices?projectid=${projectid}&${query}`);

  describe('GET /v2/admin/devices: search and pages', () => {
    it('pages through a project in the list\'s order, with the total', async () => {
      const first = await list('limit=10&offset=0');
      const third = await list('limit=10&offset=20');

      expect(first.status, first.text).to.equal(200);
      expect(first.body.total).to.equal(25);
      expect(first.body.devices).to.have.length(10);
      expect(third.body.devices).to.have.length(5);
      const all = (await list('')).body;
      expect(all.total).to.equal(25);
      expect([...first.body.devices, ...third.body.devices].map((d: TestDevice) => d.deviceid))
        .to.deep.equal([...all.devices.slice(0, 10), ...all.devices.slice(20)].map((d: TestDevice) => d.deviceid));
    });

    it('finds devices by part of the alias (any case) or the start of the device id', async () => {
      const byAlias = await list('q=GARAGE-1');
      const byId = await list(`q=${devices[3].deviceid.slice(0, 13)}`);

      expect(byAlias.body.devices.map((d: TestDevice) => d.alias)).to.deep.equal(['garage-12', 'garage-13', 'garage-14', 'garage-15', 'garage-16', 'garage-17', 'garage-18', 'garage-19']);
      expect(byAlias.body.total).to.equal(8);
      expect(byId.body.devices.map((d: TestDevice) => d.deviceid)).to.include(devices[3].deviceid);
    });

    it('refuses a page size over 1000, a negative offset and a search over 128 characters', async () => {
      for (const query of ['limit=1001', 'limit=0', 'offset=-1', 'limit=ten', `q=${'x'.repeat(129)}`]) {
        const res = await list(query);
        expect(res.status, query).to.equal(400);
        expect(res.body.code).to.equal('INVALID_QUERY');
      }
    });
  });

  describe('GET /v2/admin/projects', () => {
    it('lists every project with its groups, each with its device count and how many are online', async () => {
      const clients = [await connectDevice(stack.mqttUrl, devices[0]), await connectDevice(stack.mqttUrl, devices[20])];
      try {
        const res = await stack.admin('GET', '/v2/admin/projects');

        expect(res.status, res.text).to.equal(200);
        const project = res.body.projects.find((p: { projectid: string }) => p.projectid === projectid);
        expect(project).to.deep.equal({
          projectid, devices: 25, online: 2,
          groups: [{ groupid: 'g1', devices: 12, online: 1 }, { groupid: 'g2', devices: 13, online: 1 }],
        });
      } finally {
        await endAll(...clients);
      }
    });
  });

  describe('GET /v2/admin/service', () => {
    it('tells the console the service\'s version and the port devices connect to over MQTT', async () => {
      const res = await stack.admin('GET', '/v2/admin/service');

      expect(res.status).to.equal(200);
      expect(res.body.version).to.match(/^\d+\.\d+\.\d+/);
      expect(res.body.mqtt).to.deep.equal({ port: stack.server.mqttPort });
    });

    it('wants the admin token', async () => {
      expect((await stack.http('GET', '/v2/admin/service')).status).to.equal(401);
      expect((await stack.http('GET', '/v2/admin/projects')).status).to.equal(401);
    });
  });

  it('answers as the OpenAPI document says', async () => {
    const doc = openApiDocument() as unknown as OpenApiDocument;
    const validator = schemaValidator(doc);
    expectDocumentedResponse(doc, validator, { method: 'GET', path: '/v2/admin/devices' }, await list('limit=5&q=kitchen'));
    expectDocumentedResponse(doc, validator, { method: 'GET', path: '/v2/admin/devices' }, await list('limit=0'));
    expectDocumentedResponse(doc, validator, { method: 'GET', path: '/v2/admin/projects' }, await stack.admin('GET', '/v2/admin/projects'));
    expectDocumentedResponse(doc, validator, { method: 'GET', path: '/v2/admin/service' }, await stack.admin('GET', '/v2/admin/service'));
  });
});
