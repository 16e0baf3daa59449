import type {
  Constraint,
  Distribution,
  Namespace,
  Rollout,
  Timestamp,
  Variant,
} from '../../../domain/model';
import type { NewFlag, NewRule, NewSegment } from '../../../ports';

/** Insertion sequence: the tie-breaker after createdAt (and after rank). */
interface Ordered {
  readonly seq: number;
}

export type NamespaceRow = Namespace & Ordered & { readonly version: number };
export type FlagRow = NewFlag & Ordered & { readonly defaultVariantId: string | undefined };
export type VariantRow = Variant & Ordered;
export type SegmentRow = NewSegment & Ordered;
export type ConstraintRow = Constraint & Ordered;
export type RuleRow = NewRule & Ordered;
export type DistributionRow = Distribution & Ordered;
export type RolloutRow = Rollout & Ordered;

/** What a unit of work changed, so that a failure can put it back. */
export class Journal {
  private readonly undo: Array<() => void> = [];
  record(step: () => void): void {
    this.undo.push(step);
  }
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]?.();
  }
}

/**
 * A Map whose writes are journaled while a unit of work is open. Rows are never changed in
 * place, only replaced, so the journal keeps the old row itself.
 */
export class Table<V> {
  private readonly rows = new Map<string, V>();
  constructor(private readonly journal: () => Journal | undefined) {}

  get(key: string): V | undefined {
    return this.rows.get(key);
  }
  has(key: string): boolean {
    return this.rows.has(key);
  }
  values(): V[] {
    return [...this.rows.values()];
  }
  find(predicate: (row: V) => boolean): V[] {
    return this.values().filter(predicate);
  }
  set(key: string, row: V): void {
    const before = this.rows.get(key);
    this.journal()?.record(() =>
      before === undefined ? this.rows.delete(key) : this.rows.set(key, before),
    );
    this.rows.set(key, row);
  }
  delete(key: string): void {
    const before = this.rows.get(key);
    if (before === undefined) return;
    this.journal()?.record(() => this.rows.set(key, before));
    this.rows.delete(key);
  }
}

export const pair = (a: string, b: string): string => `${a}\u0000${b}`;

export const byCreated = <T extends Ordered & { readonly createdAt: Timestamp }>(
  a: T,
  b: T,
): number => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.seq - b.seq);

export const byRank = <T extends Ordered & { readonly rank: number }>(a: T, b: T): number =>
  a.rank - b.rank || a.seq - b.seq;

/** Every table of the in-memory store. */
export class MemoryTables {
  private current: Journal | undefined;
  private nextSeq = 0;
  private readonly journal = (): Journal | undefined => this.current;

  readonly namespaces = new Table<NamespaceRow>(this.journal);
  /** The last version of every namespace key ever seen, surviving deletion. */
  readonly lastVersions = new Table<number>(this.journal);
  /** By pair(namespace, key). */
  readonly flags = new Table<FlagRow>(this.journal);
  readonly variants = new Table<VariantRow>(this.journal);
  /** By pair(namespace, key). */
  readonly segments = new Table<SegmentRow>(this.journal);
  readonly constraints = new Table<ConstraintRow>(this.journal);
  readonly rules = new Table<RuleRow>(this.journal);
  readonly distributions = new Table<DistributionRow>(this.journal);
  readonly rollouts = new Table<RolloutRow>(this.journal);

  seq(): number {
    return this.nextSeq++;
  }

  /** Runs `fn` with writes journaled; a throw puts every table back as it was. */
  async journaled<T>(fn: () => Promise<T>): Promise<T> {
    const journal = new Journal();
    this.current = journal;
    try {
      return await fn();
    } catch (err) {
      journal.rollback();
      throw err;
    } finally {
      this.current = undefined;
    }
  }
}
