import { withSqliteWriteLock } from '../../../src/adapters/storage/typeorm/sqlite-write-lock';

const tick = () => new Promise((r) => setImmediate(r));

describe('the in-process SQLite transaction queue', () => {
  it('runs one transaction at a time, writes in arrival order', async () => {
    const key = {};
    const log: string[] = [];
    let running = 0;
    const tx = (name: string) => async () => {
      running += 1;
      expect(running).toBe(1);
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
      running -= 1;
      return name;
    };
    const results = await Promise.all(['a', 'b', 'c'].map((n) => withSqliteWriteLock(key, tx(n))));
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('lets a read go before the writes still waiting, after the one running', async () => {
    const key = {};
    const order: string[] = [];
    const tx = (name: string) => async () => {
      order.push(name);
      await tick();
    };
    const all = [
      withSqliteWriteLock(key, tx('w1')),
      withSqliteWriteLock(key, tx('w2')),
      withSqliteWriteLock(key, tx('w3')),
      withSqliteWriteLock(key, tx('r1'), 'read'),
      withSqliteWriteLock(key, tx('r2'), 'read'),
    ];
    await Promise.all(all);
    expect(order).toEqual(['w1', 'r1', 'r2', 'w2', 'w3']);
  });

  it('moves on after a transaction that fails', async () => {
    const key = {};
    const failed = withSqliteWriteLock(key, async () => {
      await tick();
      throw new Error('boom');
    });
    const next = withSqliteWriteLock(key, async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    await expect(withSqliteWriteLock(key, async () => 'idle again', 'read')).resolves.toBe(
      'idle again',
    );
  });
});

describe('reads ahead of writes', () => {
  it('let a waiting write through after 8 reads in a row', async () => {
    const key = {};
    const order: string[] = [];
    const tx = (name: string) => async () => {
      order.push(name);
      await tick();
    };
    const all = [withSqliteWriteLock(key, tx('w1')), withSqliteWriteLock(key, tx('w2'))];
    for (let i = 1; i <= 10; i++) all.push(withSqliteWriteLock(key, tx(`r${i}`), 'read'));
    await Promise.all(all);
    expect(order).toEqual([
      'w1',
      'r1',
      'r2',
      'r3',
      'r4',
      'r5',
      'r6',
      'r7',
      'r8',
      'w2',
      'r9',
      'r10',
    ]);
  });
});
