/**
 * One backend the service needs to do its work. `check` resolves when the backend answers and rejects (or times
 * out) when it does not; it must be cheap, since load balancers call /readyz every few seconds. New backends
 * (Cassandra, KairosDB, an MQTT backbone) bring their own check and join the list in the composition root.
 */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}
