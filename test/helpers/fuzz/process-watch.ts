/** Catches what would end a production process during a fuzz run, and names the sequences that were running. */

export interface ProcessEvent {
  kind: 'uncaughtException' | 'unhandledRejection';
  error: unknown;
  /** Sequences being played, or just finished, when it fired: the suspects. */
  suspects: number[];
}

/**
 * Listens for what would end a production process, until `remove()`. Mocha's own `uncaughtException` listener is set
 * aside meanwhile: it would fail the running hook or test at once while a fuzz run goes on (and the suite's `after`
 * would stop the stack under it), where the run should stop, replay the suspects and report. Mocha hands unhandled
 * rejections that are not its own on to the other listeners, so its listener for those stays.
 */
export function watchProcess(suspects: () => number[] = () => []) {
  const events: ProcessEvent[] = [];
  const onException = (error: unknown) => void events.push({ kind: 'uncaughtException', error, suspects: suspects() });
  const onRejection = (error: unknown) => void events.push({ kind: 'unhandledRejection', error, suspects: suspects() });
  const mochas = process.listeners('uncaughtException');
  for (const listener of mochas) process.off('uncaughtException', listener);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return {
    events,
    remove() {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
      for (const listener of mochas) process.on('uncaughtException', listener);
    },
  };
}
