import type { NamespaceRows } from '../../model';
import type { EvaluationSource } from '../../../ports';
import {
  assembleNamespace,
  compileNamespace,
  type CompiledFlag,
  type CompiledNamespace,
} from '../../evaluation';
import type { FreshnessMode } from './snapshot-types';

type CompiledSegments = CompiledNamespace['segments'];
type CompiledSegment = CompiledSegments extends ReadonlyMap<string, infer S> ? S : never;

export interface WarmUpDeps {
  /** The rows of some flags and of the segments they use, read in one transaction. */
  readonly loadFlags: (
    namespaceKey: string,
    flagKeys: readonly string[],
  ) => Promise<NamespaceRows | undefined>;
  /** The namespace's current version; only called when `checkVersion` is set. */
  readonly getVersion: (namespaceKey: string) => Promise<number | undefined>;
  /** Runs a database read (tracking whether the database is reachable). */
  readonly read: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Other processes write to the database: every answer first checks the version. */
  readonly checkVersion: boolean;
}

/** One read of some flags: their compiled form, or undefined when the namespace did not exist. */
interface Part {
  readonly version: number | undefined;
  readonly compiled: CompiledNamespace | undefined;
}

/** The flags of one namespace read so far, all at `version` once one read has come back. */
interface Warming {
  known: boolean;
  version: number | undefined;
  readonly done: Map<string, Part>;
  readonly inflight: Map<string, Promise<Part>>;
  /** Settles when the read running now does; undefined when none runs. */
  reading: Promise<void> | undefined;
  /** Flags asked for while a read ran, read together next. */
  readonly queued: Set<string>;
  next: Promise<Part> | undefined;
}

const older = (a: number | undefined, b: number | undefined): boolean => (a ?? -1) < (b ?? -1);

/**
 * Evaluations of a namespace that is not held yet. Its whole load takes long at tens of
 * thousands of flags (reading the rows alone is most of it), so meanwhile an evaluation reads
 * and compiles just the flags it asks for, with the segments they use, in one transaction, and
 * answers exactly as the whole snapshot would. Flags read are kept, and concurrent reads of
 * the same flag shared, only until the whole snapshot arrives or a write makes them old
 * (`drop`); the first answer that comes back wins, so a whole load that is quicker (from the
 * snapshot cache, a small namespace) is used as soon as it is there.
 */
export class WarmUp {
  private readonly warming = new Map<string, Warming>();

  constructor(private readonly deps: WarmUpDeps) {}

  /** Warm-up over a source that can read single flags; undefined for one that cannot. */
  static over(
    source: EvaluationSource,
    mode: FreshnessMode,
    read: <T>(fn: () => Promise<T>) => Promise<T>,
  ): WarmUp | undefined {
    const loadFlags = source.loadFlags;
    if (loadFlags === undefined) return undefined;
    return new WarmUp({
      loadFlags: (ns, keys) => loadFlags.call(source, ns, keys),
      getVersion: (ns) => source.getNamespaceVersion(ns),
      read,
      checkVersion: mode === 'version-check',
    });
  }

  /**
   * The namespace compiled for at least `flagKeys`, from a read of just them or from `whole`
   * (started here, after the read), whichever answers first; undefined when the namespace
   * does not exist. When the read fails, the whole load answers (or fails) as before.
   */
  compiled(
    namespaceKey: string,
    flagKeys: readonly string[],
    whole: () => Promise<CompiledNamespace | undefined>,
  ): Promise<CompiledNamespace | undefined> {
    const demand = this.flags(namespaceKey, [...new Set(flagKeys)]);
    // The whole load starts once the flags are read: its work on the event loop would otherwise
    // come between each of the read's statements and their answers.
    const full = demand.then(whole, whole);
    void full.then(
      () => this.drop(namespaceKey),
      () => undefined,
    );
    return firstOf(demand, full);
  }

  /** The flags read so far are old (a write committed) or no longer needed. */
  drop(namespaceKey: string): void {
    this.warming.delete(namespaceKey);
  }

  private async flags(
    namespaceKey: string,
    keys: readonly string[],
  ): Promise<CompiledNamespace | undefined> {
    let w = this.state(namespaceKey);
    if (this.deps.checkVersion) {
      const version = await this.deps.read(() => this.deps.getVersion(namespaceKey));
      w = this.state(namespaceKey);
      if (w.known && w.version !== version) w = this.reset(namespaceKey);
    }
    const missing = keys.filter((k) => !w.done.has(k) && !w.inflight.has(k));
    if (missing.length > 0) this.start(w, namespaceKey, missing);
    const parts = await Promise.all(keys.map((k) => w.done.get(k) ?? w.inflight.get(k)));
    const first = parts[0];
    // Reads that ran across a write answer from one read of every flag instead.
    if (first === undefined || parts.some((p) => p?.version !== first.version)) {
      return (await this.read(this.state(namespaceKey), namespaceKey, keys)).compiled;
    }
    if (first.compiled === undefined) return undefined;
    return merge([...new Set(parts.map((p) => p?.compiled as CompiledNamespace))]);
  }

  private state(namespaceKey: string): Warming {
    return this.warming.get(namespaceKey) ?? this.reset(namespaceKey);
  }

  private reset(namespaceKey: string): Warming {
    const w: Warming = {
      known: false,
      version: undefined,
      done: new Map(),
      inflight: new Map(),
      reading: undefined,
      queued: new Set(),
      next: undefined,
    };
    this.warming.set(namespaceKey, w);
    return w;
  }

  /**
   * Reads the flags, or while a read runs, queues them for the read after it: the first
   * evaluation is answered from a read of its flag alone, and the many that arrive meanwhile
   * (a restart under traffic) from one read of all theirs instead of one each.
   */
  private start(w: Warming, namespaceKey: string, keys: readonly string[]): void {
    let read: Promise<Part>;
    if (w.reading === undefined) {
      read = this.launch(w, namespaceKey, keys);
    } else {
      for (const k of keys) w.queued.add(k);
      w.next ??= w.reading.then(() => {
        const queued = [...w.queued];
        w.queued.clear();
        w.next = undefined;
        return this.launch(w, namespaceKey, queued);
      });
      read = w.next;
    }
    for (const k of keys) w.inflight.set(k, read);
    const settled = (): void => {
      for (const k of keys) if (w.inflight.get(k) === read) w.inflight.delete(k);
    };
    read.then(settled, settled);
  }

  private launch(w: Warming, namespaceKey: string, keys: readonly string[]): Promise<Part> {
    const read = this.read(w, namespaceKey, keys);
    const reading = read.then(
      () => undefined,
      () => undefined,
    );
    w.reading = reading;
    void reading.then(() => {
      if (w.reading === reading) w.reading = undefined;
    });
    return read;
  }

  private async read(w: Warming, namespaceKey: string, keys: readonly string[]): Promise<Part> {
    const rows = await this.deps.read(() => this.deps.loadFlags(namespaceKey, keys));
    const part: Part =
      rows === undefined
        ? { version: undefined, compiled: undefined }
        : { version: rows.version, compiled: compileNamespace(rows) };
    this.keep(w, namespaceKey, keys, part);
    return part;
  }

  /** Kept while still current: a newer version replaces what was read before it. */
  private keep(w: Warming, namespaceKey: string, keys: readonly string[], part: Part): void {
    if (this.warming.get(namespaceKey) !== w) return;
    if (w.known && w.version !== part.version) {
      if (older(part.version, w.version)) return;
      w.done.clear();
    }
    w.known = true;
    w.version = part.version;
    for (const k of keys) w.done.set(k, part);
  }
}

/** The first of two promises to fulfil; rejects with `b`'s error when both reject. */
function firstOf<T>(a: Promise<T>, b: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let failed = 0;
    let error: unknown;
    const fail = (which: 'a' | 'b') => (err: unknown) => {
      if (which === 'b' || failed === 0) error = err;
      failed += 1;
      if (failed === 2) reject(error);
    };
    a.then(resolve, fail('a'));
    b.then(resolve, fail('b'));
  });
}

/** Reads of the same version put together: each flag as the read that had it compiled it. */
function merge(parts: readonly CompiledNamespace[]): CompiledNamespace {
  const first = parts[0] as CompiledNamespace;
  if (parts.length === 1) return first;
  const flags = new Map<string, CompiledFlag>();
  const segments = new Map<string, CompiledSegment>();
  for (const part of parts) {
    for (const [key, flag] of part.flags) if (!flags.has(key)) flags.set(key, flag);
    for (const [key, segment] of part.segments) segments.set(key, segment);
  }
  return assembleNamespace(first.data.namespace, first.version, flags, segments);
}
