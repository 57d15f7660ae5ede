import { expect } from 'chai';
import { TestDevice } from './devices';
import { HttpClient, httpClient, HttpResponse } from './http';
import { Stack } from './stack';

/** An HTTP client that sends the device's `Authorization: Device <ClientID>:<token>` on every call. */
export function asDevice(stack: Stack, device: TestDevice): HttpClient {
  return httpClient(stack.baseUrl, { authorization: device.auth });
}

/**
 * The one error body of the service: `{status, code, message, requestId}` as JSON, where `status` repeats the HTTP
 * code and `requestId` repeats the X-Request-Id header.
 */
export function expectError(res: HttpResponse, status: number, code: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.body).to.be.an('object');
  expect(res.body).to.include({ status, code });
  expect(res.body.message).to.be.a('string').that.is.not.empty;
  expect(res.body.requestId).to.be.a('string').that.equals(res.headers.get('x-request-id'));
}
