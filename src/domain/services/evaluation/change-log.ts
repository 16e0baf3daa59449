import type { ChangedKeys } from '../../model';
import type { Repositories, UnitOfWork, WriteScope } from '../../../ports';
import type { TouchedKeys } from '../../evaluation';

/** Versions remembered per namespace; beyond, the oldest are forgotten (a reload then). */
const MAX_VERSIONS = 1000;

/**
 * What each version of a namespace changed, as far as this instance knows: from its own
 * writes (`recordLocal`, paired with what the writes in flight declared) and from change
 * notices of other instances. A snapshot at version v can be brought to version w by reading
 * just the keys changed in (v, w] when every version in between is known.
 */
export class ChangeLog {
  private readonly versions = new Map<string, Map<number, ChangedKeys>>();
  /** What the writes in flight per namespace said they may touch. */
  private readonly intents = new Map<string, Set<{ readonly touched: ChangedKeys }>>();

  record(namespaceKey: string, version: number, changed: ChangedKeys): void {
    let known = this.versions.get(namespaceKey);
    if (known === undefined) {
      known = new Map();
      this.versions.set(namespaceKey, known);
    }
    known.set(version, changed);
    if (known.size > MAX_VERSIONS) {
      const oldest = Math.min(...known.keys());
      known.delete(oldest);
    }
  }

  /** A write that may touch `touched` starts; call the result when it has ended. */
  writing(namespaceKey: string, touched: ChangedKeys): () => void {
    let set = this.intents.get(namespaceKey);
    if (set === undefined) {
      set = new Set();
      this.intents.set(namespaceKey, set);
    }
    const intent = { touched };
    set.add(intent);
    return () => {
      set.delete(intent);
      if (set.size === 0 && this.intents.get(namespaceKey) === set) {
        this.intents.delete(namespaceKey);
      }
    };
  }

  /**
   * A write of this process committed `version`: it changed at most what the writes in
   * flight on the namespace declared (its own among them); 'all' when none declared anything.
   */
  recordLocal(namespaceKey: string, version: number): ChangedKeys {
    const changed = this.touchedNow(namespaceKey);
    this.record(namespaceKey, version, changed);
    return changed;
  }

  /** What the writes in flight on the namespace may touch together ('all' when none said). */
  touchedNow(namespaceKey: string): ChangedKeys {
    const intents = this.intents.get(namespaceKey);
    if (intents === undefined || intents.size === 0) return 'all';
    return union([...intents].map((i) => i.touched)) ?? 'all';
  }

  /**
   * The keys changed in versions (from, to], or undefined when one of them is unknown here or
   * changed the namespace as a whole.
   */
  between(namespaceKey: string, from: number, to: number): TouchedKeys | undefined {
    const known = this.versions.get(namespaceKey);
    if (known === undefined || to - from > known.size) return undefined;
    const changes: ChangedKeys[] = [];
    for (let v = from + 1; v <= to; v++) {
      const changed = known.get(v);
      if (changed === undefined) return undefined;
      changes.push(changed);
    }
    return union(changes);
  }

  /** Whether a write of this process on the namespace is running (its version may come). */
  writingNow(namespaceKey: string): boolean {
    return this.intents.has(namespaceKey);
  }

  /** The highest version known, if any. */
  latest(namespaceKey: string): number | undefined {
    const known = this.versions.get(namespaceKey);
    return known === undefined || known.size === 0 ? undefined : Math.max(...known.keys());
  }

  /** Forgets the versions up to `version` (a snapshot at it is held). */
  prune(namespaceKey: string, version: number): void {
    const known = this.versions.get(namespaceKey);
    if (known === undefined) return;
    for (const v of known.keys()) if (v <= version) known.delete(v);
    if (known.size === 0) this.versions.delete(namespaceKey);
  }
}

/** The keys of several changes together; undefined when one of them is 'all'. */
function union(changes: readonly ChangedKeys[]): TouchedKeys | undefined {
  const flags = new Set<string>();
  const segments = new Set<string>();
  for (const c of changes) {
    if (c === 'all') return undefined;
    for (const k of c.flags) flags.add(k);
    for (const k of c.segments) segments.add(k);
  }
  return { flags: [...flags], segments: [...segments] };
}

/** Whether every key of `needed` is in `have`. */
export function coversKeys(have: TouchedKeys, needed: TouchedKeys): boolean {
  const flags = new Set(have.flags);
  const segments = new Set(have.segments);
  return needed.flags.every((k) => flags.has(k)) && needed.segments.every((k) => segments.has(k));
}

/**
 * A unit of work that reports each committed write's namespace version, so that the
 * snapshots can pair it with what the write touched.
 */
export class VersionReportingUnitOfWork implements UnitOfWork {
  constructor(
    private readonly inner: UnitOfWork,
    private readonly committed: (namespaceKey: string, version: number) => void,
  ) {}

  read<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    return this.inner.read(work);
  }

  async write<T>(
    namespaceKey: string,
    work: (repos: Repositories, scope: WriteScope) => Promise<T>,
  ): Promise<T> {
    let version: number | undefined;
    const result = await this.inner.write(namespaceKey, (repos, scope) => {
      version = scope.version;
      return work(repos, scope);
    });
    if (version !== undefined) this.committed(namespaceKey, version);
    return result;
  }

  async writeNamespaces<T>(
    namespaceKeys: readonly string[],
    work: (repos: Repositories, scopes: ReadonlyMap<string, WriteScope>) => Promise<T>,
  ): Promise<T> {
    let versions: Array<[string, number]> = [];
    const result = await this.inner.writeNamespaces(namespaceKeys, (repos, scopes) => {
      versions = [];
      for (const [key, scope] of scopes) {
        if (scope.version !== undefined) versions.push([key, scope.version]);
      }
      return work(repos, scopes);
    });
    for (const [key, version] of versions) this.committed(key, version);
    return result;
  }
}
