import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { PortInUseError, startServer } from './server';

/** `npm start`: read the environment, start, and close everything on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  // `npm start -- --demo` is DEMO=true: npm passes the flag on to this process.
  const config = loadConfig(process.argv.includes('--demo') ? { ...process.env, DEMO: 'true' } : process.env);
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof PortInUseError) {
    process.stderr.write(`openpie: ${err.message}\n`);
  } else {
    process.stderr.write(`openpie: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  }
  process.exit(1);
});
