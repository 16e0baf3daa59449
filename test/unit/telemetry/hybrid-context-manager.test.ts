import { createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { HybridContextManager } from '../../../src/adapters/telemetry/async-context-manager';

const KEY = createContextKey('test');
const ctx = (name: string): Context => ROOT_CONTEXT.setValue(KEY, name);
const nameOf = (c: Context): unknown => c.getValue(KEY);
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('HybridContextManager', () => {
  let manager: HybridContextManager;
  beforeEach(() => {
    manager = new HybridContextManager();
  });
  afterEach(() => {
    manager.disable();
  });

  it('with() sets the context for the synchronous run only, and restores the outer one', async () => {
    let later: unknown = 'unset';
    const inner = manager.with(ctx('a'), () => {
      const outer = nameOf(manager.active());
      const nested = manager.with(ctx('b'), () => nameOf(manager.active()));
      setTimeout(() => (later = nameOf(manager.active())), 0);
      return [outer, nested, nameOf(manager.active())];
    });
    expect(inner).toEqual(['a', 'b', 'a']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
    await tick();
    expect(later).toBeUndefined();
  });

  it('runAsync() carries the context across awaits and timers until its promise settles', async () => {
    const seen: unknown[] = [];
    const result = await manager.runAsync(ctx('req'), async () => {
      seen.push(nameOf(manager.active()));
      await tick();
      seen.push(nameOf(manager.active()));
      // A child opened inside stays the parent of what follows its own awaits.
      await manager.with(ctx('child'), async () => {
        await tick();
        seen.push(nameOf(manager.active()));
      });
      seen.push(nameOf(manager.active()));
      return 7;
    });
    expect(result).toBe(7);
    expect(seen).toEqual(['req', 'req', 'child', 'req']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('keeps concurrent async work apart, and turns propagation off when the last one ends', async () => {
    const run = (name: string, delay: number) =>
      manager.runAsync(ctx(name), async () => {
        await new Promise((r) => setTimeout(r, delay));
        return nameOf(manager.active());
      });
    await expect(Promise.all([run('x', 5), run('y', 1)])).resolves.toEqual(['x', 'y']);
    // Nothing is in flight: a continuation started afterwards sees no context.
    let after: unknown = 'unset';
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        after = nameOf(manager.active());
        resolve();
      }, 1),
    );
    expect(after).toBeUndefined();
  });

  it('releases a failed runAsync, and enterAsync until its release is called', async () => {
    await expect(
      manager.runAsync(ctx('bad'), () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    let seen: unknown;
    const { release } = manager.enterAsync(ctx('http'), () => {
      setTimeout(() => (seen = nameOf(manager.active())), 1);
    });
    await tick();
    await tick();
    expect(seen).toBe('http');
    release();
    release();
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });
});
