import { UnavailableError } from '../domain/errors';

/**
 * A stand-in for a service that is not ready yet (the database is still being reached at
 * start): every call fails with UNAVAILABLE until `resolve` provides the real one, and is
 * forwarded to it afterwards. Transports can be built and listening before storage is up.
 */
export class Deferred<T extends object> {
  private target: T | undefined;
  /** Methods of the target bound once, not on every call through the proxy. */
  private readonly bound = new Map<string | symbol, unknown>();
  readonly proxy: T;

  constructor(private readonly notReadyMessage: string) {
    this.proxy = new Proxy({} as T, {
      get: (_obj, prop) => {
        const target = this.target;
        if (target === undefined) {
          return () => Promise.reject(new UnavailableError(this.notReadyMessage));
        }
        const known = this.bound.get(prop);
        if (known !== undefined) return known;
        const value = (target as Record<string | symbol, unknown>)[prop];
        if (typeof value !== 'function') return value;
        const bound: unknown = value.bind(target);
        this.bound.set(prop, bound);
        return bound;
      },
    });
  }

  resolve(target: T): void {
    this.target = target;
    this.bound.clear();
  }

  get ready(): boolean {
    return this.target !== undefined;
  }
}
