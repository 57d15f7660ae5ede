import pino, { Logger } from 'pino';

/** Structured JSON logs on stdout. Credentials never reach a log line: these paths are redacted whatever logs them. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: ['token', 'secret', 'adminToken', 'password', '*.token', '*.secret', 'req.headers.authorization'],
  });
}
