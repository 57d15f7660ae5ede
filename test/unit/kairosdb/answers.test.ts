import { expect } from 'chai';
import pino from 'pino';
import { decodeAnswer, failureOf } from '../../../src/adapters/kairosdb/kairosdb-client';
import { QueryResponseBody } from '../../../src/adapters/kairosdb/kairosdb-codecs';
import { KairosQueryError } from '../../../src/timeseries/query';

const logger = pino({ level: 'silent' });
const answer = (status: number, errors: (string | null)[]) => failureOf({ status, data: { errors } }, 'query', logger);

describe("KairosDB's answers, translated at the adapter", () => {
  it('passes a 400 through with its messages', () => {
    const err = answer(400, ['query.metric[0].aggregators[0].bogus invalid aggregators name']);
    expect(err).to.be.instanceOf(KairosQueryError);
    expect((err as KairosQueryError).errors).to.deep.equal(['query.metric[0].aggregators[0].bogus invalid aggregators name']);
  });

  it('turns the 500s that depend only on the query into the 400 the embedded engine gives', () => {
    const err = answer(500, ['No aggregator can be chained after org.kairosdb.core.aggregator.DataGapsMarkingAggregator']);
    expect(err).to.be.instanceOf(KairosQueryError);
    expect(err.status).to.equal(400);
  });

  it('says a NaN result is a KairosDB 1.2.1 limit (500 BACKEND_ERROR)', () => {
    const err = answer(500, ['NaN or Infinity:NaN data point=DataPointHelper{m_timestamp=0}']);
    expect([err.status, err.code]).to.deep.equal([500, 'BACKEND_ERROR']);
    expect(err.message).to.contain('NaN or infinite');
  });

  it('answers 503 when KairosDB reports its datastore down or a gateway fails, 500 otherwise, without its text', () => {
    const down = answer(500, ['org.kairosdb.core.exception.DatastoreException: com.datastax.driver.core.exceptions.NoHostAvailableException: All host(s) tried']);
    expect([down.status, down.code]).to.deep.equal([503, 'BACKEND_UNAVAILABLE']);
    expect(down.message).to.not.contain('datastax');
    expect(answer(502, []).code).to.equal('BACKEND_UNAVAILABLE');
    const other = failureOf({ status: 500, data: '<html>oops</html>' }, 'query', logger);
    expect([other.status, other.code, other.message]).to.deep.equal([500, 'BACKEND_ERROR', 'the time-series backend (KairosDB) failed the query (HTTP 500)']);
  });

  it('decodes a query answer, and refuses one of another shape with BACKEND_ERROR', () => {
    const body = { queries: [{ sample_size: 2, results: [{ name: 'm', group_by: [{ name: 'type', type: 'number' }], tags: { a: ['b'] }, values: [[1, 2.5], [2, null]] }] }] };
    expect(decodeAnswer(QueryResponseBody, { status: 200, data: body }, 'query', logger)).to.deep.equal(body);
    const bad = { queries: [{ sample_size: 2, results: [{ name: 'm', values: [[1, 'x']] }] }] };
    expect(() => decodeAnswer(QueryResponseBody, { status: 200, data: bad }, 'query', logger)).to.throw('answered the query with a body the service cannot read');
  });
});
