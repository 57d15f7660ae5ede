import { NodeIdInUseError } from './cluster/node-registration';
import { ConfigError, loadConfig } from './config/config';
import { createLogger } from './core/logger';
import { PortInUseError, RunningServer, startServer } from './server';
import { startBanner } from './start-banner';

/** How many SHUTDOWN_TIMEOUT_MS a shutdown may take in all: requests, publishes and the outbox may each take one. */
const SHUTDOWN_HARD_LIMIT = 3;

/** `npm start`: read the environment, start, and close everything on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  // `npm start -- --demo` is DEMO=true: npm passes the flag on to this process.
  const config = loadConfig(process.argv.includes('--demo') ? { ...process.env, DEMO: 'true' } : process.env);
  const logger = createLogger(config.logLevel);
  // A signal is heard from the start: one that comes while the server is starting stops it as soon as it has started
  // (without a handler Node would end the process at once, skipping the shutdown).
  let signalled: string | undefined;
  let server: RunningServer | undefined;
  const onSignal = (signal: string) => {
    signalled ??= signal;
    if (server) stop(server, signal);
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  server = await startServer(config, logger);
  process.stdout.write(startBanner(config, server));
  if (signalled) stop(server, signalled);

  function stop(running: RunningServer, signal: string): void {
    logger.info({ signal }, 'shutting down');
    // Every step of close() has its own bound; this one is for the unforeseen. Exiting loses nothing acknowledged:
    // what was acknowledged is stored already (docs/production.md "What survives what").
    setTimeout(() => {
      logger.error({ signal, afterMs: SHUTDOWN_HARD_LIMIT * config.shutdownTimeoutMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_HARD_LIMIT * config.shutdownTimeoutMs).unref();
    running.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  }
}

main().catch((err: unknown) => {
  if (err instanceof PortInUseError) {
    // The message names the variable, e.g. "MQTT (MQTT_PORT) port 1883 ...": say how to move it (a local Mosquitto
    // often holds 1883).
    const variable = /\(([A-Z_]+)\)/.exec(err.message)?.[1];
    const hint = variable === undefined ? '' : `: set ${variable} to another port (0 picks a free one)`;
    process.stderr.write(`openpie: ${err.message}${hint}\n`);
  } else if (err instanceof ConfigError || err instanceof NodeIdInUseError) {
    process.stderr.write(`openpie: ${err.message}\n`);
  } else {
    process.stderr.write(`openpie: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  }
  process.exit(1);
});
