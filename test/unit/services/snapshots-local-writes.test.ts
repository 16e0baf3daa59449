import { UnavailableError } from '../../../src/domain/errors';
import type { NamespaceData } from '../../../src/domain/model';
import { NamespaceSnapshots } from '../../../src/domain/services/evaluation/namespace-snapshots';
import type { EvaluationSource } from '../../../src/ports';

/*
 * A write committed by this process ('notified' freshness, the embedded database): the write
 * answers once the served snapshot includes it, and evaluations are not held up meanwhile.
 */

const TS = '2024-05-01T10:00:00.000000Z';

const namespaceAt = (version: number): NamespaceData => ({
  namespace: {
    key: 'ns',
    name: 'ns',
    description: '',
    protected: false,
    createdAt: TS,
    updatedAt: TS,
  },
  version,
  flags: [],
  segments: [],
  rules: [],
  rollouts: [],
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

describe('a write committed by this process', () => {
  it('is answered once the snapshot includes it, while reads go on from the held one', async () => {
    const { db, snapshots } = await held();
    db.version = 2;
    db.holding = true;
    const written = snapshots.invalidate('ns');

    // The update is in flight: reads are answered at once, from version 1.
    expect(snapshots.peek('ns')?.version).toBe(1);
    expect((await snapshots.get('ns'))?.version).toBe(1);
    expect(await settled(written)).toBe(false);

    db.release();
    await written;
    expect(snapshots.peek('ns')?.version).toBe(2);
    expect((await snapshots.get('ns'))?.version).toBe(2);
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
