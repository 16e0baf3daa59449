import { UnavailableError } from '../domain/errors';

/**
 * A stand-in for a service that is not ready yet (the database is still being reached at
 * start): every call fails with UNAVAILABLE until `resolve` provides the real one, and is
 * forwarded to it afterwards. Transports can be built and listening before storage is up.
 */
export class Deferred<T extends object> {
  private target: T | undefined;
  readonly proxy: T;

  constructor(private readonly notReadyMessage: string) {
    this.proxy = new Proxy({} as T, {
      get: (_obj, prop) => {
        const target = this.target;
        if (target === undefined) {
          return () => Promise.reject(new UnavailableError(this.notReadyMessage));
        }
        const value = (target as Record<string | symbol, unknown>)[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  resolve(target: T): void {
    this.target = target;
  }

  get ready(): boolean {
    return this.target !== undefined;
  }
}
