import { expect } from 'chai';
import { coapCodeOf } from '../../src/coap/codes';
import { CoapRoute, credentialsOf, handlerOf, matchRoute, parseQuery, requestTarget } from '../../src/coap/routes';
import { AppError, ERROR_STATUS, ErrorCode } from '../../src/core/errors';

function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('CoAP response codes', () => {
  it('maps each HTTP status of the error table to the CoAP code of the same meaning', () => {
    const expected: Record<number, string> = {
      400: '4.00', 401: '4.01', 403: '4.03', 404: '4.04', 405: '4.05', 408: '4.08', 409: '4.09', 412: '4.12',
      413: '4.13', 415: '4.15', 429: '4.29', 500: '5.00', 503: '5.03',
    };
    for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
      const status = ERROR_STATUS[code];
      expect(coapCodeOf(status), `${code} (${status})`).to.equal(expected[status]);
    }
  });

  it('falls back to 4.00 and 5.00 for a status outside the table', () => {
    expect(coapCodeOf(418)).to.equal('4.00');
    expect(coapCodeOf(502)).to.equal('5.00');
  });
});

describe('CoAP request targets', () => {
  it('takes Uri-Path and Uri-Query options one by one, whatever they contain', () => {
    const target = requestTarget([
      { name: 'Uri-Path', value: Buffer.from('message') },
      { name: 'Uri-Path', value: Buffer.from('a?b&c') },
      { name: 'Content-Format', value: 'application/json' },
      { name: 'Uri-Query', value: Buffer.from('auth=id:tok&en') },
    ]);

    expect(target).to.deep.equal({ segments: ['message', 'a?b&c'], queries: ['auth=id:tok&en'] });
  });

  it('reads name=value arguments, an argument without = as empty, and refuses a name given twice', () => {
    expect([...parseQuery(['auth=a:b', 'alias=x=y', 'flag'])]).to.deep.equal([
      ['auth', 'a:b'],
      ['alias', 'x=y'],
      ['flag', ''],
    ]);
    expect(appErrorOf(() => parseQuery(['alias=a', 'alias=b'])).code).to.equal('INVALID_QUERY');
  });

  it('splits auth at its first colon, so a token may hold colons', () => {
    expect(credentialsOf(new Map([['auth', 'dev:to:ken']]))).to.deep.equal({ deviceid: 'dev', token: 'to:ken' });
    expect(appErrorOf(() => credentialsOf(new Map())).code).to.equal('MISSING_CREDENTIALS');
    for (const auth of ['', 'dev', ':token']) {
      expect(appErrorOf(() => credentialsOf(new Map([['auth', auth]]))).code, auth).to.equal('INVALID_CREDENTIALS');
    }
  });
});

describe('CoAP route matching', () => {
  const handler = async () => ({ code: '2.05' as const, body: {} });
  const routes: CoapRoute[] = [
    { path: ['message'], open: true, maxPayloadBytes: 1, methods: { PUT: handler } },
    { path: ['shadow', 'data'], open: false, maxPayloadBytes: 1, methods: { GET: handler } },
  ];

  it('matches fixed paths exactly and open paths with any rest', () => {
    expect(matchRoute(routes, ['shadow', 'data'])?.route).to.equal(routes[1]);
    expect(matchRoute(routes, ['shadow', 'data', 'x'])).to.equal(undefined);
    expect(matchRoute(routes, ['shadow'])).to.equal(undefined);
    expect(matchRoute(routes, ['message', 'a', 'b'])).to.deep.include({ route: routes[0], rest: ['a', 'b'] });
    expect(matchRoute(routes, ['message'])).to.deep.include({ rest: [] });
  });

  it('refuses a method the route does not take, including unnamed codes and inherited names', () => {
    expect(handlerOf(routes[1], 'GET')).to.equal(handler);
    for (const method of ['PUT', undefined, 'constructor', 'toString']) {
      expect(appErrorOf(() => handlerOf(routes[1], method)).code, String(method)).to.equal('METHOD_NOT_ALLOWED');
    }
  });
});
