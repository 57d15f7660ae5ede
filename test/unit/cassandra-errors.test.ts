import { expect } from 'chai';
import { errors, types } from 'cassandra-driver';
import { isUnknownWriteOutcome, translateCassandraError } from '../../src/adapters/cassandra/cassandra-errors';
import { AppError } from '../../src/core/errors';

const codes = types.responseErrorCodes;
/** The driver's own "Socket was closed" (lib/connection.js); its typings declare DriverError abstract. */
const DriverError = errors.DriverError as unknown as new (message: string) => Error;
const socketClosed = (requestNotWritten: boolean) =>
  Object.assign(new DriverError('Socket was closed'), { isSocketError: true, requestNotWritten });

describe('Cassandra driver errors, as the adapters translate them', () => {
  const unavailable: [string, Error][] = [
    ['no host available', new errors.NoHostAvailableError({})],
    ['a client-side timeout', new errors.OperationTimedOutError('no answer')],
    ['too few replicas', new errors.ResponseError(codes.unavailableException, 'Cannot achieve consistency level LOCAL_QUORUM')],
    ['a write timeout', new errors.ResponseError(codes.writeTimeout, 'timed out')],
    ['a read timeout', new errors.ResponseError(codes.readTimeout, 'timed out')],
    ['an overloaded node', new errors.ResponseError(codes.overloaded, 'overloaded')],
    ['a broken connection', socketClosed(false)],
  ];
  for (const [what, err] of unavailable) {
    it(`makes ${what} a 503 BACKEND_UNAVAILABLE that names no address`, () => {
      const translated = translateCassandraError(err, 'write shadow');

      expect(translated).to.be.instanceOf(AppError).and.include({ code: 'BACKEND_UNAVAILABLE', status: 503 });
      expect(translated.message).to.not.match(/\d+\.\d+\.\d+\.\d+/);
    });
  }

  it('keeps a bad statement a plain error (a 500 and one log line), with the driver error as its cause', () => {
    const err = new errors.ResponseError(codes.syntaxError, 'line 1:7 no viable alternative');

    const translated = translateCassandraError(err, 'read device');

    expect(translated).to.not.be.instanceOf(AppError);
    expect(translated.cause).to.equal(err);
  });

  it('passes AppErrors through', () => {
    const err = new AppError('ALIAS_TAKEN', 'taken');

    expect(translateCassandraError(err, 'register device')).to.equal(err);
  });

  it('tells writes of unknown outcome (timed out, or the connection broke once sent) from refused ones', () => {
    expect(isUnknownWriteOutcome(new errors.ResponseError(codes.writeTimeout, 'CAS'))).to.equal(true);
    expect(isUnknownWriteOutcome(new errors.OperationTimedOutError('no answer'))).to.equal(true);
    expect(isUnknownWriteOutcome(socketClosed(false))).to.equal(true);
    expect(isUnknownWriteOutcome(socketClosed(true)), 'never sent').to.equal(false);
    expect(isUnknownWriteOutcome(new errors.NoHostAvailableError({})), 'never sent').to.equal(false);
    expect(isUnknownWriteOutcome(new errors.ResponseError(codes.unavailableException, 'before the write'))).to.equal(false);
  });
});
