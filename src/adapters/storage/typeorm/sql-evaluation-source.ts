import type { Flag, NamespaceData, NamespaceRows, Rollout, Rule } from '../../../domain/model';
import type { EvaluationSource } from '../../../ports';
import { groupBy, num, RowMapper, type Row } from './row-mappers';
import { FLAG_COLS, VARIANT_COLS } from './sql-flag-repository';
import { NS_COLS } from './sql-namespace-repository';
import { readRollouts, ROLLOUT_COLS } from './sql-rollout-repository';
import { readRules, RULE_COLS } from './sql-rule-repository';
import { CONSTRAINT_COLS, SEGMENT_COLS } from './sql-segment-repository';
import { gather, type Reads, type SqlSession, type Tx } from './sql-session';

/**
 * Flags read per round of a whole-namespace load (with their variants, rules, distributions
 * and rollouts: about 1,250 distribution rows for flags of 5 rules); the event loop gets a
 * turn between rounds. At 10,000 flags of 5 rules a round of 125 holds the loop about 7 ms on
 * SQLite (250: 11 to 15 ms), and the whole load takes as long.
 */
const FLAG_PAGE = 125;

/**
 * Attempts at reading a namespace in parts checked against its version (a SQLite namespace a
 * page per transaction, a few flags' rows by concurrent statements) before one transaction.
 */
const VERSIONED_ATTEMPTS = 3;

type Mapper = ReturnType<RowMapper['forNamespaceLoad']>;

interface Head {
  readonly map: Mapper;
  readonly namespace: NamespaceData['namespace'];
  readonly version: number;
  readonly segments: NamespaceData['segments'];
  readonly keys: readonly string[];
}

interface Page {
  readonly flags: readonly Flag[];
  readonly rules: readonly Rule[];
  readonly rollouts: readonly Rollout[];
}

function assemble(head: Head, pages: readonly Page[]): NamespaceData {
  const flags: Flag[] = [];
  const rules: Rule[] = [];
  const rollouts: Rollout[] = [];
  for (const page of pages) {
    for (const f of page.flags) flags.push(f);
    for (const r of page.rules) rules.push(r);
    for (const r of page.rollouts) rollouts.push(r);
  }
  const { namespace, version, segments } = head;
  return { namespace, version, flags, segments, rules, rollouts };
}

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** Lets other work on the event loop (evaluations) run between two rounds of a long load. */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The evaluation side's reads: the version is one primary-key read; a namespace is read in
 * one read transaction, its flags a page at a time so that no single statement or mapping
 * holds the event loop for long; a change reads just the rows of the flags and segments it
 * touched.
 */
export class SqlEvaluationSource implements EvaluationSource {
  private readonly map: RowMapper;

  constructor(private readonly session: SqlSession) {
    this.map = new RowMapper(session.dialect);
  }

  async getNamespaceVersion(namespaceKey: string): Promise<number | undefined> {
    const rows = await this.session.query(`SELECT "version" FROM namespaces WHERE "key" = ?`, [
      namespaceKey,
    ]);
    const row = rows[0];
    return row === undefined ? undefined : num(row['version']);
  }

  loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined> {
    return this.session.dialect.name === 'sqlite'
      ? this.loadInTurns(namespaceKey)
      : this.loadInOne(namespaceKey);
  }

  /** The namespace in one read transaction, a page of flags at a time. */
  private loadInOne(namespaceKey: string): Promise<NamespaceData | undefined> {
    return this.session.read(async (tx) => {
      const head = await this.head(tx, namespaceKey);
      if (head === undefined) return undefined;
      const parts: Page[] = [];
      for (let i = 0; i < head.keys.length; i += FLAG_PAGE) {
        parts.push(await this.page(tx, head.map, namespaceKey, head.keys.slice(i, i + FLAG_PAGE)));
      }
      return assemble(head, parts);
    });
  }

  /**
   * SQLite's transactions on one file queue in-process (sqlite-write-lock.ts), so one long read
   * of a large namespace would hold back every other read meanwhile, the evaluations of the
   * flags of a namespace warming up among them. Each page is therefore a short transaction of
   * its own that first reads the namespace's version: every write bumps it in its transaction,
   * so one version across the pages means they show one state of the namespace. A write in
   * between starts the read again; after a few attempts the namespace is read in one go.
   */
  private async loadInTurns(namespaceKey: string): Promise<NamespaceData | undefined> {
    for (let attempt = 0; attempt < VERSIONED_ATTEMPTS; attempt++) {
      const head = await this.session.read((tx) => this.head(tx, namespaceKey));
      if (head === undefined) return undefined;
      const parts: Page[] = [];
      for (let i = 0; i < head.keys.length; i += FLAG_PAGE) {
        const pageKeys = head.keys.slice(i, i + FLAG_PAGE);
        const part = await this.session.read(async (tx) =>
          (await this.versionIn(tx, namespaceKey)) === head.version
            ? this.page(tx, head.map, namespaceKey, pageKeys)
            : undefined,
        );
        if (part === undefined) break;
        parts.push(part);
      }
      if (parts.length * FLAG_PAGE >= head.keys.length) return assemble(head, parts);
    }
    return this.loadInOne(namespaceKey);
  }

  /** The namespace, its version, its segments and the keys of its flags in creation order. */
  private async head(tx: Tx, namespaceKey: string): Promise<Head | undefined> {
    const nsRow = await this.namespaceRow(tx, namespaceKey);
    if (!nsRow) return undefined;
    // One table of key strings for the whole load: every rule and distribution repeats the
    // namespace key, its flag key, rule and variant ids.
    const map = this.map.forNamespaceLoad();
    const segments = await this.segments(tx, map, namespaceKey, undefined);
    // The keys first (one narrow column), then the flags themselves a page at a time.
    const keys = (
      await tx.all(`SELECT "key" FROM flags WHERE namespace_key = ? ORDER BY created_at, "key"`, [
        namespaceKey,
      ])
    ).map((r) => String(r['key']));
    return {
      map,
      namespace: map.namespace(nsRow),
      version: num(nsRow['version']),
      segments,
      keys,
    };
  }

  /** One page of flags with their variants, rules and rollouts. */
  private page(tx: Tx, map: Mapper, namespaceKey: string, pageKeys: readonly string[]) {
    // Every statement of the page waits for a turn of the event loop first.
    const paced: Reads = {
      dialect: tx.dialect,
      all: async (sql, params) => (await breathe(), tx.all(sql, params)),
    };
    return this.flagsOf(paced, map, namespaceKey, pageKeys);
  }

  /** A namespace created again continues above its last version (namespace_tombstones). */
  private async versionIn(tx: Reads, namespaceKey: string): Promise<number | undefined> {
    const rows = await tx.all(`SELECT "version" FROM namespaces WHERE "key" = ?`, [namespaceKey]);
    return rows[0] === undefined ? undefined : num(rows[0]['version']);
  }

  loadRows(
    namespaceKey: string,
    keys: { readonly flags: readonly string[]; readonly segments: readonly string[] },
  ): Promise<NamespaceRows | undefined> {
    return this.atOneVersion(namespaceKey, async (reads, nsRow) => {
      const map = this.map.forNamespaceLoad();
      const flagKeys = [...new Set(keys.flags)];
      const segmentKeys = [...new Set(keys.segments)];
      const [page, segments] = await gather(
        reads,
        () => this.flagsOf(reads, map, namespaceKey, flagKeys),
        () => this.segments(reads, map, namespaceKey, segmentKeys),
      );
      return { namespace: map.namespace(nsRow), version: num(nsRow['version']), ...page, segments };
    });
  }

  loadFlags(namespaceKey: string, flagKeys: readonly string[]): Promise<NamespaceRows | undefined> {
    return this.atOneVersion(namespaceKey, async (reads, nsRow) => {
      const map = this.map.forNamespaceLoad();
      const page = await this.flagsOf(reads, map, namespaceKey, [...new Set(flagKeys)]);
      const used = new Set<string>();
      for (const r of page.rules) for (const k of r.segmentKeys) used.add(k);
      for (const r of page.rollouts) for (const k of r.segment?.segmentKeys ?? []) used.add(k);
      const segments = await this.segments(reads, map, namespaceKey, [...used]);
      return { namespace: map.namespace(nsRow), version: num(nsRow['version']), ...page, segments };
    });
  }

  /**
   * A few rows of a namespace as of one of its versions. On SQLite: one short transaction,
   * whose statements are synchronous calls anyway. On a database server a transaction's
   * statements queue on its connection, a round trip each, while evaluations of a flag just
   * written wait for its rows; so the statements run at once on connections of their own,
   * outside a transaction, between two reads of the namespace's version. Every write
   * bumps that version in its transaction, so the same version before and after means that
   * no write committed meanwhile and the rows show one state. A namespace that keeps moving
   * is read in one transaction after a few attempts.
   */
  private async atOneVersion<T>(
    namespaceKey: string,
    read: (reads: Reads, nsRow: Row) => Promise<T>,
  ): Promise<T | undefined> {
    const inTransaction = () =>
      this.session.read(async (tx) => {
        const nsRow = await this.namespaceRow(tx, namespaceKey);
        return nsRow === undefined ? undefined : read(tx, nsRow);
      });
    const reads = this.session.statements;
    if (reads.concurrent !== true) return inTransaction();
    for (let attempt = 0; attempt < VERSIONED_ATTEMPTS; attempt++) {
      const nsRow = await this.namespaceRow(reads, namespaceKey);
      if (nsRow === undefined) return undefined;
      const value = await read(reads, nsRow);
      if ((await this.versionIn(reads, namespaceKey)) === num(nsRow['version'])) return value;
    }
    return inTransaction();
  }

  private async namespaceRow(tx: Reads, namespaceKey: string): Promise<Row | undefined> {
    const rows = await tx.all(`SELECT ${NS_COLS}, "version" FROM namespaces WHERE "key" = ?`, [
      namespaceKey,
    ]);
    return rows[0];
  }

  /** Segments with their constraints: all of them, or those with the given keys. */
  private async segments(
    tx: Reads,
    map: Mapper,
    namespaceKey: string,
    keys: readonly string[] | undefined,
  ) {
    if (keys?.length === 0) return [];
    const only = keys === undefined ? '' : ` AND segment_key IN (${placeholders(keys.length)})`;
    const onlyKeys = keys === undefined ? '' : ` AND "key" IN (${placeholders(keys.length)})`;
    const params = [namespaceKey, ...(keys ?? [])];
    const [constraintRows, segmentRows] = await gather(
      tx,
      () =>
        tx.all(
          `SELECT ${CONSTRAINT_COLS} FROM constraints WHERE namespace_key = ?${only} ORDER BY created_at, id`,
          params,
        ),
      () =>
        tx.all(
          `SELECT ${SEGMENT_COLS} FROM segments WHERE namespace_key = ?${onlyKeys} ORDER BY created_at, "key"`,
          params,
        ),
    );
    const constraintsBySegment = groupBy(constraintRows, 'segment_key', (c) => map.constraint(c));
    return segmentRows.map((s) => map.segment(s, constraintsBySegment.get(String(s['key'])) ?? []));
  }

  /**
   * The flags of `keys` that exist, with their variants, and the rules and rollouts of all of
   * `keys` (a flag deleted since has rules of none).
   */
  private async flagsOf(
    reads: Reads,
    map: Mapper,
    namespaceKey: string,
    keys: readonly string[],
  ): Promise<Page> {
    if (keys.length === 0) return { flags: [], rules: [], rollouts: [] };
    const inKeys = `(${placeholders(keys.length)})`;
    const p = [namespaceKey, ...keys];
    const scope = { where: `r.namespace_key = ? AND r.flag_key IN ${inKeys}`, params: p };
    const [flagRows, variantRows, rules, rollouts] = await gather(
      reads,
      () =>
        reads.all(
          `SELECT ${FLAG_COLS} FROM flags WHERE namespace_key = ? AND "key" IN ${inKeys} ORDER BY created_at, "key"`,
          p,
        ),
      () =>
        reads.all(
          `SELECT ${VARIANT_COLS} FROM variants WHERE namespace_key = ? AND flag_key IN ${inKeys} ORDER BY created_at, id`,
          p,
        ),
      () =>
        readRules(
          reads,
          map,
          () =>
            reads.all(
              `SELECT ${RULE_COLS} FROM rules WHERE namespace_key = ? AND flag_key IN ${inKeys} ORDER BY flag_key, "rank", created_at, id`,
              p,
            ),
          scope,
        ),
      () =>
        readRollouts(
          reads,
          map,
          () =>
            reads.all(
              `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE namespace_key = ? AND flag_key IN ${inKeys} ORDER BY flag_key, "rank", created_at, id`,
              p,
            ),
          scope,
        ),
    );
    const variantsByFlag = groupBy(variantRows, 'flag_key', (v) => map.variant(v));
    const flags = flagRows.map((f) => map.flag(f, variantsByFlag.get(String(f['key'])) ?? []));
    return { flags, rules, rollouts };
  }
}
