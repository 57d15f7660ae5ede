import { AppError } from '../core/errors';
import { InvalidPointError } from '../timeseries/validate-points';
import { ServiceMetrics } from './service-metrics';

/**
 * A failure of the backend itself (a driver, disk or network error), as opposed to an answer about the request:
 * adapters translate those into AppErrors (DEVICE_NOT_FOUND, SHUTTING_DOWN), and an InvalidPointError is a fault of
 * the caller. The adapters of remote backends (KairosDB) translate the backend's own failures into BACKEND_* AppErrors:
 * those count.
 */
const TRANSLATED_FAILURES = new Set<string>(['BACKEND_UNAVAILABLE', 'BACKEND_ERROR']);

const isBackendError = (err: unknown) =>
  err instanceof AppError ? TRANSLATED_FAILURES.has(err.code) : !(err instanceof InvalidPointError);

/**
 * The port with every method wrapped so that a backend failure, thrown or rejected, counts in
 * `openpie_backend_errors_total{backend}`, and is told to `onFailure` when given. The error still reaches the caller
 * unchanged.
 */
export function countBackendErrors<T extends object>(
  backend: string,
  port: T,
  metrics: Pick<ServiceMetrics, 'backendErrors'>,
  onFailure?: () => void,
): T {
  const count = (err: unknown) => {
    if (!isBackendError(err)) return;
    metrics.backendErrors.inc({ backend });
    onFailure?.();
  };
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (!wrapped.has(key)) {
        wrapped.set(key, (...args: unknown[]) => {
          try {
            const result: unknown = value.apply(target, args);
            if (!(result instanceof Promise)) return result;
            return result.catch((err: unknown) => {
              count(err);
              throw err;
            });
          } catch (err) {
            count(err);
            throw err;
          }
        });
      }
      return wrapped.get(key);
    },
  });
}
