import { UnavailableError } from '../../../domain/errors';
import type { ListRequest, NamespaceData, NamespaceRows } from '../../../domain/model';
import type {
  Clock,
  EvaluationSource,
  Repositories,
  Storage,
  TokenRepository,
  UnitOfWork,
  WriteScope,
} from '../../../ports';
import { MemoryTables } from './memory-tables';
import { memoryRepositories } from './memory-repositories';
import { MemoryTokenRepository } from './memory-token-repository';

export interface InMemoryStoreOptions {
  readonly clock: Clock;
}

const ALL: ListRequest = { limit: 0, offset: 0, pageToken: '', reference: '' };

/**
 * The honest fake: every storage port over Maps, for tests and for running without a
 * database (`db.url: memory:`). Units of work run one at a time; one that throws is undone
 * from its journal, so a failed write leaves no trace, as a rolled-back transaction would.
 *
 * Versions: a namespace's version is 1 when its key is first created and grows by one with
 * every unit of work on it. A namespace deleted and created again continues above its last
 * version, so a (namespace, version) pair never names two different contents.
 */
export class InMemoryStore implements Storage, UnitOfWork, EvaluationSource {
  readonly shared = false;
  readonly description = 'memory';
  readonly unitOfWork: UnitOfWork = this;
  readonly evaluationSource: EvaluationSource = this;
  readonly tokens: TokenRepository = new MemoryTokenRepository();
  private readonly tables = new MemoryTables();
  private readonly repos: Repositories = memoryRepositories(this.tables);
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: InMemoryStoreOptions) {
    const now = options.clock.now();
    this.tables.namespaces.set('default', {
      key: 'default',
      name: 'Default',
      description: 'Default namespace',
      protected: true,
      createdAt: now,
      updatedAt: now,
      seq: this.tables.seq(),
      version: 1,
    });
    this.tables.lastVersions.set('default', 1);
  }

  async ping(): Promise<void> {
    this.ensureOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  read<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    return this.serialized(() => work(this.repos));
  }

  write<T>(
    namespaceKey: string,
    work: (repos: Repositories, scope: WriteScope) => Promise<T>,
  ): Promise<T> {
    return this.serialized(() =>
      this.tables.journaled(() => work(this.repos, { namespaceExists: this.bump(namespaceKey) })),
    );
  }

  writeNamespaces<T>(
    namespaceKeys: readonly string[],
    work: (repos: Repositories, scopes: ReadonlyMap<string, WriteScope>) => Promise<T>,
  ): Promise<T> {
    return this.serialized(() =>
      this.tables.journaled(() => {
        const scopes = new Map<string, WriteScope>();
        for (const key of [...new Set(namespaceKeys)].sort()) {
          scopes.set(key, { namespaceExists: this.bump(key) });
        }
        return work(this.repos, scopes);
      }),
    );
  }

  /** Bumps the namespace's version (inside a journaled write); false when it does not exist. */
  private bump(namespaceKey: string): boolean {
    const t = this.tables;
    const ns = t.namespaces.get(namespaceKey);
    if (ns === undefined) return false;
    t.namespaces.set(namespaceKey, { ...ns, version: ns.version + 1 });
    t.lastVersions.set(namespaceKey, ns.version + 1);
    return true;
  }

  async getNamespaceVersion(namespaceKey: string): Promise<number | undefined> {
    this.ensureOpen();
    return this.tables.namespaces.get(namespaceKey)?.version;
  }

  loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined> {
    return this.serialized(async () => {
      const row = this.tables.namespaces.get(namespaceKey);
      if (row === undefined) return undefined;
      const r = this.repos;
      const scope = { ...ALL, namespaceKey };
      const flags = (await r.flags.listFlags(scope)).items;
      const perFlag = async <T>(
        list: (req: typeof scope & { flagKey: string }) => Promise<{ items: readonly T[] }>,
      ): Promise<T[]> => {
        const lists = await Promise.all(flags.map((f) => list({ ...scope, flagKey: f.key })));
        return lists.flatMap((l) => l.items);
      };
      return {
        namespace: (await r.namespaces.getNamespace(namespaceKey))!,
        version: row.version,
        flags,
        segments: (await r.segments.listSegments(scope)).items,
        rules: await perFlag((req) => r.rules.listRules(req)),
        rollouts: await perFlag((req) => r.rollouts.listRollouts(req)),
      };
    });
  }

  async loadFlags(
    namespaceKey: string,
    flagKeys: readonly string[],
  ): Promise<NamespaceRows | undefined> {
    const data = await this.loadNamespace(namespaceKey);
    if (data === undefined) return undefined;
    const keys = new Set(flagKeys);
    const rules = data.rules.filter((r) => keys.has(r.flagKey));
    const rollouts = data.rollouts.filter((r) => keys.has(r.flagKey));
    const used = new Set([
      ...rules.flatMap((r) => r.segmentKeys),
      ...rollouts.flatMap((r) => r.segment?.segmentKeys ?? []),
    ]);
    return {
      namespace: data.namespace,
      version: data.version,
      flags: data.flags.filter((f) => keys.has(f.key)),
      rules,
      rollouts,
      segments: data.segments.filter((s) => used.has(s.key)),
    };
  }

  private ensureOpen(): void {
    if (this.closed) throw new UnavailableError('storage is closed');
  }

  /** One unit of work at a time: the work awaits between its steps, others must not interleave. */
  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => {
      this.ensureOpen();
      return fn();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}
