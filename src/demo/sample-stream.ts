export interface SampleStream {
  /** Idempotent: no write starts after it, and it waits for the one in flight. */
  stop(): Promise<void>;
}

/**
 * Calls `write` every `intervalMs`, never two at once (a slow write makes the stream skip a tick rather than pile
 * up). The timer does not keep the process alive; a failed write is reported and the stream goes on.
 */
export function startSampleStream(
  write: () => Promise<unknown>,
  intervalMs: number,
  onError: (err: unknown) => void,
): SampleStream {
  let inFlight: Promise<void> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped || inFlight) return;
    inFlight = write().then(
      () => undefined,
      (err: unknown) => onError(err),
    ).finally(() => {
      inFlight = undefined;
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}
