import { Deferred } from '../../../src/app/deferred';
import { UnavailableError } from '../../../src/domain/errors';

class Service {
  constructor(readonly name: string) {}
  hello(): string {
    return `hello ${this.name}`;
  }
}

describe('Deferred', () => {
  it('fails every call until resolved', async () => {
    const d = new Deferred<Service>('not ready');
    await expect(d.proxy.hello() as unknown as Promise<string>).rejects.toBeInstanceOf(
      UnavailableError,
    );
    expect(d.ready).toBe(false);
  });

  it('forwards to the target with its own this, binding each method once', () => {
    const d = new Deferred<Service>('not ready');
    d.resolve(new Service('a'));
    expect(d.proxy.hello()).toBe('hello a');
    expect(d.proxy.hello).toBe(d.proxy.hello);
    expect(d.proxy.name).toBe('a');
  });

  it('forgets the bound methods when resolved again', () => {
    const d = new Deferred<Service>('not ready');
    d.resolve(new Service('a'));
    expect(d.proxy.hello()).toBe('hello a');
    d.resolve(new Service('b'));
    expect(d.proxy.hello()).toBe('hello b');
  });
});
