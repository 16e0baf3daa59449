import { UnavailableError } from '../../../src/domain/errors';
import type { NamespaceData } from '../../../src/domain/model';
import { NamespaceSnapshots } from '../../../src/domain/services/evaluation/namespace-snapshots';
import type { ChangedKeys } from '../../../src/domain/model';
import type { EvaluationSource } from '../../../src/ports';
import { buildNamespace } from '../evaluation/fixtures';

/*
 * A write committed by this process ('notified' freshness, the embedded database): the write
 * need not wait for the served snapshot to include it. Meanwhile the flags it may have changed
 * are answered only from the new snapshot (read-your-writes) and every other flag at once.
 */

const namespaceAt = (version: number): NamespaceData =>
  buildNamespace({
    key: 'ns',
    version,
    flags: [{ key: 'a' }, { key: 'b', rules: [{ segments: ['s'] }] }, { key: 'c' }],
    segments: [{ key: 's' }],
  });

/** A namespace whose version moves on each write; loads can be held or made to fail. */
class Database implements EvaluationSource {
  version = 1;
  failure: Error | undefined;
  private held: Array<() => void> = [];
  holding = false;

  getNamespaceVersion(): Promise<number | undefined> {
    return Promise.resolve(this.version);
  }

  async loadNamespace(): Promise<NamespaceData | undefined> {
    // What the read transaction sees is fixed when it starts.
    const version = this.version;
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.failure !== undefined) throw this.failure;
    return namespaceAt(version);
  }

  /** Lets the oldest held load go on. */
  releaseOldest(): void {
    this.held.shift()?.();
  }

  release(): void {
    this.holding = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  // Every promise that can settle now has, once the microtask queue is empty.
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

async function held(): Promise<{ db: Database; snapshots: NamespaceSnapshots }> {
  const db = new Database();
  const snapshots = new NamespaceSnapshots(db, {
    mode: 'notified',
    stopwatch: { nowMs: () => 0 },
  });
  expect((await snapshots.get('ns'))?.version).toBe(1);
  return { db, snapshots };
}

/** A write of `touched` commits version 2 and is announced, with the update held. */
function write(db: Database, snapshots: NamespaceSnapshots, touched: ChangedKeys): Promise<void> {
  db.version = 2;
  db.holding = true;
  const end = snapshots.writing('ns', touched);
  snapshots.committed('ns', 2);
  end();
  return snapshots.invalidate('ns');
}

describe('a write committed by this process', () => {
  it('holds back only the flags it changed until the snapshot includes it', async () => {
    const { db, snapshots } = await held();
    const updated = write(db, snapshots, { flags: ['a'], segments: [] });

    // The update is in flight: other flags are answered at once, from version 1.
    expect(snapshots.peek('ns', 'c')?.version).toBe(1);
    expect(snapshots.peek('ns', ['b', 'c'])?.version).toBe(1);
    expect((await snapshots.get('ns', 'c'))?.version).toBe(1);
    // The flag written, and the namespace as a whole, only from the new snapshot.
    expect(snapshots.peek('ns', 'a')).toBeUndefined();
    expect(snapshots.peek('ns', ['c', 'a'])).toBeUndefined();
    expect(snapshots.peek('ns')).toBeUndefined();
    const flagA = snapshots.get('ns', 'a');
    const whole = snapshots.compiledFor('ns', ['a']);
    expect(await settled(flagA)).toBe(false);
    expect(await settled(whole)).toBe(false);
    expect(await settled(updated)).toBe(false);

    db.release();
    expect((await flagA)?.version).toBe(2);
    expect((await whole)?.version).toBe(2);
    await updated;
    expect(snapshots.peek('ns', 'c')?.version).toBe(2);
    expect(snapshots.peek('ns', 'a')?.version).toBe(2);
  });

  it('holds back the flags that use a segment it changed', async () => {
    const { db, snapshots } = await held();
    const updated = write(db, snapshots, { flags: [], segments: ['s'] });
    expect(snapshots.peek('ns', 'b')).toBeUndefined();
    expect(snapshots.peek('ns', 'a')?.version).toBe(1);
    db.release();
    await updated;
    expect(snapshots.peek('ns', 'b')?.version).toBe(2);
  });

  it('holds back the whole namespace when it did not say what it touched', async () => {
    const { db, snapshots } = await held();
    db.version = 2;
    db.holding = true;
    const updated = snapshots.invalidate('ns');
    expect(snapshots.peek('ns', 'c')).toBeUndefined();
    const flagC = snapshots.get('ns', 'c');
    expect(await settled(flagC)).toBe(false);
    db.release();
    expect((await flagC)?.version).toBe(2);
    await updated;
  });

  it('waits for a second write committed during the update', async () => {
    const { db, snapshots } = await held();
    db.version = 2;
    db.holding = true;
    const first = snapshots.invalidate('ns');
    await settled(first); // its update has read version 2 and is held
    db.version = 3;
    const second = snapshots.invalidate('ns');
    await settled(second);
    // The first update ends with version 2, already superseded: the first write waits on.
    db.releaseOldest();
    expect(await settled(first)).toBe(false);
    expect(snapshots.peek('ns')).toBeUndefined();
    db.release();
    await first;
    expect(snapshots.peek('ns')?.version).toBe(3);
    await second;
  });

  it('when the update fails, does not fail the write and makes the next read reload', async () => {
    const { db, snapshots } = await held();
    db.version = 2;
    db.failure = new Error('disk I/O error');
    await expect(snapshots.invalidate('ns')).resolves.toBeUndefined();
    // Nothing usable without I/O: the next read must see the write, so it reloads.
    expect(snapshots.peek('ns')).toBeUndefined();
    db.failure = undefined;
    expect((await snapshots.get('ns'))?.version).toBe(2);
  });

  it('when the database is unreachable, serves the last known good and reloads later', async () => {
    const { db, snapshots } = await held();
    db.version = 2;
    db.failure = new UnavailableError('sqlite unreachable');
    await snapshots.invalidate('ns');
    expect((await snapshots.get('ns'))?.version).toBe(1);
    expect(snapshots.freshness().stale).toBe(true);
    db.failure = undefined;
    expect((await snapshots.get('ns'))?.version).toBe(2);
    expect(snapshots.freshness().stale).toBe(false);
  });
});
