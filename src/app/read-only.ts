import { UnavailableError } from '../domain/errors';
import type { ManagementApi } from '../domain/services/api';

const WRITE = /^(create|update|delete|order|copy)/;

/**
 * server.mode read-only: an evaluation tier. Reads pass through; every write is refused with
 * UNAVAILABLE (HTTP 503) and a message that says where writes belong.
 */
export function readOnly(api: ManagementApi): ManagementApi {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop === 'string' && WRITE.test(prop)) {
        return () =>
          Promise.reject(
            new UnavailableError(
              'this instance is read-only (server.mode: read-only): send writes to a read-write instance',
            ),
          );
      }
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
