import pino, { DestinationStream, Logger } from 'pino';

/**
 * Structured JSON logs on stdout (or `destination`, which tests use to read the lines). Credentials never reach a
 * log line: these paths are redacted whatever logs them.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: ['token', 'secret', 'adminToken', 'password', '*.token', '*.secret', 'req.headers.authorization'],
  };
  return destination ? pino(options, destination) : pino(options);
}
