import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** `curl -d` sends `Content-Type: application/x-www-form-urlencoded` unless told otherwise (issue 13 §3). */
const CURL_D = 'application/x-www-form-urlencoded';

describe('415 answers say which content types an endpoint takes', () => {
  let stack: Stack;
  let device: TestDevice;
  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
  });
  after(() => stack.stop());

  it('a message endpoint: text/plain or any type but a form encoding, and how to send it with curl', async () => {
    const res = await asDevice(stack, device)('PUT', '/v2/device/message/home/lamp', { body: 'ON', contentType: CURL_D });

    expect(res.status).to.equal(415);
    expect(res.body.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.message).to.equal(
      'got Content-Type: application/x-www-form-urlencoded (what curl -d sends), which would mangle the message; ' +
        'accepted: text/plain, or any type but application/x-www-form-urlencoded and multipart/form-data: ' +
        "add -H 'Content-Type: text/plain'",
    );
  });

  it('a JSON endpoint: application/json (or +json), text/plain or none, and how to send it with curl', async () => {
    const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: '{"data":{"temp":1}}', contentType: CURL_D });

    expect(res.status).to.equal(415);
    expect(res.body.message).to.equal(
      'got Content-Type: application/x-www-form-urlencoded (what curl -d sends); ' +
        "accepted: application/json (or a +json type), text/plain, or none: add -H 'Content-Type: application/json'",
    );
  });
});
