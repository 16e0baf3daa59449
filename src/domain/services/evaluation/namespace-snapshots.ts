import { UnavailableError } from '../../errors';
import type { ChangedKeys, NamespaceData } from '../../model';
import type { ChangeNotice, EvaluationSource } from '../../../ports';
import { compileNamespace, compileNamespaceInBatches } from '../../evaluation';
import type { CompiledNamespace } from '../../evaluation';
import { ChangeLog } from './change-log';
import { patchSnapshot } from './snapshot-patch';
import {
  snapshotOf,
  type NamespaceSnapshot,
  type NamespaceSnapshotsOptions,
  type RefreshReason,
  type SnapshotFreshness,
} from './snapshot-types';

export type {
  FreshnessMode,
  NamespaceSnapshot,
  NamespaceSnapshotsOptions,
  RefreshReason,
  SnapshotCachingOptions,
  SnapshotFreshness,
  SnapshotObserver,
} from './snapshot-types';
import { SnapshotCacheAccess } from './snapshot-cache-access';
import { flagsChangedSince, SettlingWrites } from './settling-writes';
import { Staleness } from './staleness';
import { WarmUp } from './warm-up';

interface Entry {
  /** undefined: the namespace did not exist when last read. */
  readonly snapshot: NamespaceSnapshot | undefined;
  readonly version: number | undefined;
  /** The last known good, served because a load failed (never stored). */
  readonly failed?: boolean;
}

/** Updates tried after a local write before reads are made to wait for a reload instead. */
const CATCH_UP_ROUNDS = 3;

const ABSENT: Entry = { snapshot: undefined, version: undefined };

interface Fetched {
  readonly entry: Entry;
  readonly from: 'cache' | 'database';
}

/**
 * Compiled, in-memory snapshots of namespaces for evaluation. Loads are de-duplicated per
 * namespace; a write announced through `invalidate` is never hidden by a load that started
 * before it; when the database cannot be reached the last known good snapshot is served.
 */
export class NamespaceSnapshots {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();
  private readonly generations = new Map<string, number>();
  /** Namespaces written by this process whose next read must wait for the new version. */
  private readonly pending = new Set<string>();
  /** Local writes answered before the held snapshot includes them. */
  private readonly settling = new SettlingWrites();
  private readonly refreshing = new Map<string, Promise<void>>();
  /** Highest version announced while a refresh was running. */
  private readonly wanted = new Map<string, number>();
  private checking = false;
  private readonly staleness: Staleness;
  private stopTicker: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  /** What each recent version changed, for updates that read only that. */
  private readonly changes = new ChangeLog();
  /** The highest version of each namespace committed by this process ('cached' mode). */
  private readonly committedHere = new Map<string, number>();
  /** Local writes are announced as they commit (see `committed`), not after a reload. */
  private announcesCommits = false;
  private readonly cache: SnapshotCacheAccess;
  /** Answers for namespaces not held yet, from the rows of the flags asked for. */
  private readonly warmUp: WarmUp | undefined;

  constructor(
    private readonly source: EvaluationSource,
    private readonly options: NamespaceSnapshotsOptions,
  ) {
    this.staleness = new Staleness(options);
    this.cache = new SnapshotCacheAccess(
      options.caching?.cache,
      options.observer?.onCacheResult,
      options.logger,
    );
    this.warmUp = WarmUp.over(source, options.mode, (fn) => this.staleness.read(fn));
    if (options.mode === 'cached') {
      const caching = options.caching;
      if (caching === undefined) throw new Error("freshness mode 'cached' needs caching options");
      this.stopTicker = caching.scheduler.every(Math.max(1, caching.ttlMs / 2), () => {
        void this.checkAll('ttl');
      });
      this.unsubscribe = caching.changeFeed?.subscribe(
        (notice) => this.noticed(notice),
        () => void this.checkAll('notice'),
      );
    }
  }

  /**
   * The snapshot of a namespace, or undefined when the namespace does not exist. When only
   * `flagKeys` will be read from it, a local write that changed none of them is not waited for.
   */
  async get(
    namespaceKey: string,
    flagKeys?: string | readonly string[],
  ): Promise<NamespaceSnapshot | undefined> {
    const settling = this.settling.awaited(namespaceKey, flagKeys);
    if (settling !== undefined) await settling;
    const cached = this.entries.get(namespaceKey);
    if (this.options.mode !== 'version-check') {
      if (cached !== undefined && !this.pending.has(namespaceKey)) return cached.snapshot;
      return (await this.load(namespaceKey)).snapshot;
    }
    let version: number | undefined;
    try {
      version = await this.staleness.read(() => this.source.getNamespaceVersion(namespaceKey));
    } catch (err) {
      return this.staleness.fallback(namespaceKey, cached, err);
    }
    if (cached !== undefined && cached.version === version) return cached.snapshot;
    return (await this.load(namespaceKey)).snapshot;
  }

  /** What evaluates `flagKeys`: the snapshot, or just those flags while it first loads. */
  compiledFor(namespaceKey: string, flagKeys: readonly string[]) {
    const whole = async (): Promise<CompiledNamespace | undefined> =>
      (await this.get(namespaceKey, flagKeys))?.compiled;
    if (this.warmUp === undefined || this.entries.has(namespaceKey)) return whole();
    return this.warmUp.compiled(namespaceKey, flagKeys, whole);
  }

  /**
   * A cached snapshot without any I/O, when one is known to be usable right now for
   * `flagKeys` (for the whole namespace when undefined).
   */
  peek(namespaceKey: string, flagKeys?: string | readonly string[]): NamespaceSnapshot | undefined {
    if (this.options.mode === 'version-check' || this.pending.has(namespaceKey)) return undefined;
    if (this.settling.awaited(namespaceKey, flagKeys) !== undefined) return undefined;
    return this.entries.get(namespaceKey)?.snapshot;
  }

  /**
   * A write to the namespace committed in this process. The held snapshot is brought up to
   * date while evaluations go on being served from it; meanwhile the flags the write may have
   * changed are answered only once it is in (read-your-writes), so the write itself need not
   * wait: the returned promise, which never rejects, settles when the snapshot includes it.
   * When the update fails, reads wait for a reload instead. In 'cached' mode the new version
   * is also stored in the cache and announced, so other instances pick it up without the ttl.
   */
  invalidate(namespaceKey: string): Promise<void> {
    this.warmUp?.drop(namespaceKey);
    this.generations.set(namespaceKey, (this.generations.get(namespaceKey) ?? 0) + 1);
    this.loading.delete(namespaceKey);
    if (this.options.mode === 'version-check') return Promise.resolve();
    const held = this.entries.get(namespaceKey);
    if (held === undefined) {
      // Nothing held: whoever reads it next loads it whole.
      this.pending.add(namespaceKey);
      return Promise.resolve();
    }
    // What the write changed, read before the update starts to forget versions it brings.
    const affected = flagsChangedSince(this.changes, held.snapshot);
    const done = this.catchUp(namespaceKey);
    this.settling.add(namespaceKey, affected, done);
    return done;
  }

  /** A write that may touch only `touched` of the namespace starts (ChangeNotifier.writing). */
  writing(namespaceKey: string, touched: ChangedKeys): () => void {
    return this.changes.writing(namespaceKey, touched);
  }

  /**
   * A write of this process committed `version` of the namespace: recorded with what the
   * writes in flight said they touch, and in 'cached' mode announced at once with those keys,
   * so that other instances read just them. `invalidate` follows for read-your-writes.
   * `whole`: a write that declares nothing (an import) changed the namespace as a whole.
   */
  committed(namespaceKey: string, version: number, whole = false): void {
    let changed: ChangedKeys = 'all';
    // A namespace neither held nor loading is read whole when it is first asked for.
    if (this.entries.has(namespaceKey) || this.loading.has(namespaceKey)) {
      if (whole) this.changes.record(namespaceKey, version, 'all');
      else changed = this.changes.recordLocal(namespaceKey, version);
    } else if (!whole) {
      changed = this.changes.touchedNow(namespaceKey);
    }
    if (this.options.mode !== 'cached') return;
    this.announcesCommits = true;
    this.committedHere.set(
      namespaceKey,
      Math.max(version, this.committedHere.get(namespaceKey) ?? 0),
    );
    this.publish(namespaceKey, version, changed);
  }

  /** Age of each cached snapshot, in milliseconds. */
  ages(): Array<{ namespaceKey: string; ageMs: number; version: number | undefined }> {
    const now = this.options.stopwatch.nowMs();
    return [...this.entries].map(([namespaceKey, e]) => ({
      namespaceKey,
      ageMs: e.snapshot ? now - e.snapshot.builtAtMs : 0,
      version: e.version,
    }));
  }

  /** Whether evaluations may currently be answered from stale snapshots. */
  freshness(): SnapshotFreshness {
    return this.staleness.freshness();
  }

  /**
   * Runs the ttl version check of every held namespace now (also run on a schedule and when
   * change notices may have been missed). Resolves when done; never rejects.
   */
  async checkAll(reason: RefreshReason = 'ttl'): Promise<void> {
    if (this.options.mode !== 'cached' || this.checking) return;
    this.checking = true;
    try {
      for (const namespaceKey of [...this.entries.keys()]) {
        if (this.refreshing.has(namespaceKey)) continue;
        try {
          await this.refresh(namespaceKey, undefined, reason);
        } catch (err) {
          this.options.observer?.refreshFailed?.(namespaceKey, err);
          // One unreachable database answers for every namespace: stop this round.
          if (err instanceof UnavailableError) break;
        }
      }
    } finally {
      this.checking = false;
    }
  }

  /** Stops the background refresh and the change-feed subscription. */
  close(): void {
    this.stopTicker?.();
    this.unsubscribe?.();
    this.stopTicker = undefined;
    this.unsubscribe = undefined;
  }

  private noticed(notice: ChangeNotice): void {
    this.warmUp?.drop(notice.namespaceKey);
    const current = this.entries.get(notice.namespaceKey);
    if (current !== undefined || this.loading.has(notice.namespaceKey)) {
      this.changes.record(notice.namespaceKey, notice.version, notice.changed ?? 'all');
    }
    // Namespaces nobody asked for here are loaded on demand, not on notice.
    if (current === undefined) return;
    // A version this process committed (its own notice, heard back): the update that every
    // local write is followed by (`invalidate`) brings it, and any version below it.
    if (notice.version <= (this.committedHere.get(notice.namespaceKey) ?? 0)) return;
    if (current.version !== undefined && current.version >= notice.version) return;
    const wanted = this.wanted.get(notice.namespaceKey);
    if (wanted === undefined || wanted < notice.version) {
      this.wanted.set(notice.namespaceKey, notice.version);
    }
    this.follow(notice.namespaceKey, notice.version);
  }

  /**
   * Brings a held namespace up to an announced version. A load under way goes first: most
   * often it is this process catching up with its own write, the very version announced, and
   * reading the same rows twice at once would only slow both down.
   */
  private follow(namespaceKey: string, version: number): void {
    if (this.refreshing.has(namespaceKey)) return;
    const inflight = this.loading.get(namespaceKey);
    if (inflight !== undefined) {
      const after = (): void => {
        const held = this.entries.get(namespaceKey)?.version;
        if (held === undefined || held < version) this.follow(namespaceKey, version);
      };
      inflight.then(after, after);
      return;
    }
    this.refresh(namespaceKey, version, 'notice').catch((err: unknown) => {
      this.options.observer?.refreshFailed?.(namespaceKey, err);
    });
  }

  /**
   * Brings a held namespace up to `target` (a version announced by a notice) or, when
   * undefined, to the database's current version. The current snapshot keeps being served
   * until the new one is compiled.
   */
  private refresh(
    namespaceKey: string,
    target: number | undefined,
    reason: RefreshReason,
  ): Promise<void> {
    const running = this.refreshing.get(namespaceKey);
    if (running !== undefined) return running;
    const run = async (): Promise<void> => {
      let next = target;
      for (;;) {
        this.wanted.delete(namespaceKey);
        const fetched = await this.fetch(namespaceKey, next);
        this.accept(namespaceKey, fetched, reason);
        next = this.wanted.get(namespaceKey);
        const version = this.entries.get(namespaceKey)?.version;
        if (next === undefined || (version !== undefined && version >= next)) return;
      }
    };
    const promise = run().finally(() => {
      this.wanted.delete(namespaceKey);
      if (this.refreshing.get(namespaceKey) === promise) this.refreshing.delete(namespaceKey);
    });
    this.refreshing.set(namespaceKey, promise);
    return promise;
  }

  /**
   * Brings the held snapshot up to every write this process has committed to the namespace,
   * while reads go on from the held one. A write committed during the update is waited for
   * too (a few rounds, then reads wait instead).
   */
  private async catchUp(namespaceKey: string): Promise<void> {
    for (let round = 0; round < CATCH_UP_ROUNDS; round++) {
      const generation = this.generations.get(namespaceKey) ?? 0;
      let failed: boolean;
      try {
        failed = (await this.load(namespaceKey, true)).failed === true;
      } catch {
        failed = true;
      }
      if ((this.generations.get(namespaceKey) ?? 0) !== generation) continue;
      if (!failed) return;
      break;
    }
    // Not brought up to date: the next read waits for a reload that includes the write.
    if (this.options.mode !== 'cached') this.pending.add(namespaceKey);
  }

  private load(namespaceKey: string, afterWrite = this.pending.has(namespaceKey)): Promise<Entry> {
    const inflight = this.loading.get(namespaceKey);
    if (inflight !== undefined) return inflight;
    const generation = this.generations.get(namespaceKey) ?? 0;
    const current = (): boolean => (this.generations.get(namespaceKey) ?? 0) === generation;
    const promise = this.build(namespaceKey, afterWrite).then(
      (entry) => {
        if (this.options.mode === 'cached') {
          // Versions only move forward, so a slow load can never replace a newer snapshot.
          this.accept(namespaceKey, { entry, from: 'database' }, afterWrite ? 'write' : 'load');
          if (current()) this.pending.delete(namespaceKey);
        } else if (current()) {
          this.entries.set(namespaceKey, entry);
          this.pending.delete(namespaceKey);
        }
        if (this.loading.get(namespaceKey) === promise) this.loading.delete(namespaceKey);
        // Monotonic in 'cached' mode: the held entry is at least as new as the loaded one.
        return this.options.mode === 'cached' ? (this.entries.get(namespaceKey) ?? entry) : entry;
      },
      (err: unknown) => {
        if (this.loading.get(namespaceKey) === promise) this.loading.delete(namespaceKey);
        // With caching on, the ttl check retries in the background; reads go on from the
        // last known good snapshot instead of each waiting on a database that is down.
        if (this.options.mode === 'cached' && current()) this.pending.delete(namespaceKey);
        const cached = this.entries.get(namespaceKey);
        return {
          snapshot: this.staleness.fallback(namespaceKey, cached, err),
          version: cached?.version,
          failed: true,
        };
      },
    );
    this.loading.set(namespaceKey, promise);
    return promise;
  }

  private async build(namespaceKey: string, afterWrite: boolean): Promise<Entry> {
    const patched = await this.patch(namespaceKey);
    if (patched !== undefined) return patched;
    if (this.options.mode !== 'cached') {
      const data = await this.staleness.read(() => this.source.loadNamespace(namespaceKey));
      return data === undefined ? ABSENT : this.compile(data);
    }
    if (!afterWrite) return (await this.fetch(namespaceKey, undefined)).entry;
    // This process just wrote: the database is the only place holding the new version.
    const data = await this.staleness.read(() => this.source.loadNamespace(namespaceKey));
    if (data === undefined) {
      await this.cache.delete(namespaceKey);
      return ABSENT;
    }
    // Stored before it is announced, so the instances that hear of it find it in the cache.
    await this.cache.set(data);
    if (!this.announcesCommits) this.publish(namespaceKey, data.version);
    return this.compile(data);
  }

  /**
   * The namespace at `version` (or at the database's current version when undefined): from
   * the snapshot cache when it holds it, else from the database, filling the cache.
   */
  private async fetch(namespaceKey: string, version: number | undefined): Promise<Fetched> {
    let wanted = version;
    if (wanted === undefined) {
      try {
        wanted = await this.staleness.read(() => this.source.getNamespaceVersion(namespaceKey));
      } catch (err) {
        // A new instance during a database outage can still start from the shared cache.
        const fromCache =
          err instanceof UnavailableError && !this.entries.has(namespaceKey)
            ? await this.cache.latest(namespaceKey)
            : undefined;
        if (fromCache === undefined) throw err;
        return { entry: await this.compile(fromCache), from: 'cache' };
      }
      if (wanted === undefined) return { entry: ABSENT, from: 'database' };
      const held = this.entries.get(namespaceKey);
      if (held?.version !== undefined && held.version >= wanted) {
        return { entry: held, from: 'cache' };
      }
    }
    const patched = await this.patch(namespaceKey);
    if (patched?.version !== undefined && patched.version >= wanted) {
      return { entry: patched, from: 'database' };
    }
    const cached = await this.cache.get(namespaceKey, wanted);
    if (cached !== undefined) return { entry: await this.compile(cached), from: 'cache' };
    const data = await this.staleness.read(() => this.source.loadNamespace(namespaceKey));
    if (data === undefined) return { entry: ABSENT, from: 'database' };
    void this.cache.set(data);
    return { entry: await this.compile(data), from: 'database' };
  }

  /** Swaps in a fetched entry unless it would move the namespace back to an older version. */
  private accept(namespaceKey: string, fetched: Fetched, reason: RefreshReason): void {
    const { entry } = fetched;
    const held = this.entries.get(namespaceKey);
    if (held === entry) return;
    if (
      held !== undefined &&
      held.version !== undefined &&
      entry.version !== undefined &&
      entry.version <= held.version
    ) {
      return;
    }
    // An absent namespace only ever comes from the database: it was deleted.
    this.entries.set(namespaceKey, entry);
    this.options.observer?.refreshed?.(namespaceKey, entry.version, fetched.from, reason);
  }

  /** The held snapshot brought forward by reading only what changed (snapshot-patch.ts). */
  private patch(namespaceKey: string): Promise<Entry | undefined> {
    const base = this.entries.get(namespaceKey)?.snapshot;
    if (base === undefined) return Promise.resolve(undefined);
    return patchSnapshot(
      {
        source: this.source,
        changes: this.changes,
        stopwatch: this.options.stopwatch,
        read: (fn) => this.staleness.read(fn),
        delay: this.options.delay ?? (() => Promise.resolve()),
        ...(this.options.observer ? { observer: this.options.observer } : {}),
      },
      base,
    );
  }

  private async compile(data: NamespaceData): Promise<Entry> {
    const { stopwatch, pause } = this.options;
    const started = stopwatch.nowMs();
    const compiled =
      pause === undefined ? compileNamespace(data) : await compileNamespaceInBatches(data, pause);
    this.changes.prune(data.namespace.key, data.version);
    const builtAtMs = stopwatch.nowMs();
    this.options.observer?.rebuilt?.(data.namespace.key, builtAtMs - started);
    return {
      snapshot: snapshotOf(compiled, builtAtMs),
      version: data.version,
    };
  }

  private publish(namespaceKey: string, version: number, changed?: ChangedKeys): void {
    const feed = this.options.caching?.changeFeed;
    if (feed === undefined) return;
    feed.publish(namespaceKey, version, changed).catch((err: unknown) => {
      this.options.observer?.changeFeedError?.(err);
      this.options.logger?.warn('change notice not published; other instances follow within ttl', {
        namespaceKey,
        version,
        error: err instanceof Error ? err.message : String(err),
      });
    });
  }
}
