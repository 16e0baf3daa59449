import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * The active OpenTelemetry context, kept two ways:
 *
 * - `with` sets it for the synchronous run of a function. That is all an evaluation served
 *   from a cached snapshot needs, and it costs a variable swap.
 * - `runAsync` also carries it across awaits, timers and callbacks with AsyncLocalStorage,
 *   for work that continues asynchronously (a management call, a gRPC call). On Node 20,
 *   AsyncLocalStorage works through async hooks that run for every promise and async
 *   resource the process creates, whichever request it belongs to; so it is switched on only
 *   while such work is in flight, and off again when the last of it has finished.
 *
 * While async propagation is on, `with` goes through AsyncLocalStorage too, so child spans
 * opened inside that work stay the parents of what continues after their awaits.
 */
export class HybridContextManager implements ContextManager {
  private current: Context | undefined;
  private storage = new AsyncLocalStorage<Context>();
  /** runAsync calls not yet settled. */
  private asyncInFlight = 0;

  active(): Context {
    if (this.current !== undefined) return this.current;
    if (this.asyncInFlight === 0) return ROOT_CONTEXT;
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = context;
    try {
      if (this.asyncInFlight === 0) return fn.apply(thisArg, args);
      return this.storage.run(context, () => fn.apply(thisArg, args));
    } finally {
      this.current = previous;
    }
  }

  /**
   * Runs `fn` with `context` active for all of its asynchronous continuations, until the
   * promise it returns settles.
   */
  runAsync<T>(context: Context, fn: () => Promise<T>): Promise<T> {
    const { result, release } = this.enterAsync(context, fn);
    return result.finally(release);
  }

  /**
   * As runAsync for work whose end is signalled rather than awaited (an HTTP exchange):
   * the returned function, called once when the work is over, releases it.
   */
  enterAsync<T>(context: Context, fn: () => T): { result: T; release: () => void } {
    this.asyncInFlight++;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.release();
    };
    try {
      return { result: this.with(context, fn), release };
    } catch (err) {
      release();
      throw err;
    }
  }

  private release(): void {
    this.asyncInFlight--;
    // The last one out turns the async hooks off; the next runAsync turns them on again.
    if (this.asyncInFlight === 0) this.storage.disable();
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (thisArg: unknown, args: unknown[]): unknown =>
      this.with(context, () => (target as (...a: unknown[]) => unknown).apply(thisArg, args));
    return function bound(this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    this.storage = new AsyncLocalStorage<Context>();
    this.current = undefined;
    this.asyncInFlight = 0;
    return this;
  }
}
