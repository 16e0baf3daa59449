import type { Flag, NamespaceData, NamespaceRows, Rollout, Rule } from '../../../domain/model';
import type { EvaluationSource } from '../../../ports';
import { groupBy, num, RowMapper, type Row } from './row-mappers';
import { FLAG_COLS, VARIANT_COLS } from './sql-flag-repository';
import { NS_COLS } from './sql-namespace-repository';
import { assembleRollouts, ROLLOUT_COLS } from './sql-rollout-repository';
import { assembleRules, RULE_COLS } from './sql-rule-repository';
import { CONSTRAINT_COLS, SEGMENT_COLS } from './sql-segment-repository';
import type { SqlSession, Tx } from './sql-session';

/**
 * Flags read per round of a whole-namespace load (with their variants, rules, distributions
 * and rollouts: about 1,250 distribution rows for flags of 5 rules); the event loop gets a
 * turn between rounds. At 10,000 flags of 5 rules a round of 125 holds the loop about 7 ms on
 * SQLite (250: 11 to 15 ms), and the whole load takes as long.
 */
const FLAG_PAGE = 125;

/** Attempts at reading a SQLite namespace a page per transaction before one long transaction. */
const TURN_ATTEMPTS = 3;

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
    for (let attempt = 0; attempt < TURN_ATTEMPTS; attempt++) {
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
  private async page(
    tx: Tx,
    map: Mapper,
    namespaceKey: string,
    pageKeys: readonly string[],
  ): Promise<Page> {
    // Every statement of the page waits for a turn of the event loop first.
    const paced: Tx = { ...tx, all: async (sql, params) => (await breathe(), tx.all(sql, params)) };
    const flagRows = await paced.all(
      `SELECT ${FLAG_COLS} FROM flags WHERE namespace_key = ? AND "key" IN (${placeholders(pageKeys.length)}) ORDER BY created_at, "key"`,
      [namespaceKey, ...pageKeys],
    );
    return this.flagsOf(paced, map, namespaceKey, flagRows);
  }

  /** A namespace created again continues above its last version (namespace_tombstones). */
  private async versionIn(tx: Tx, namespaceKey: string): Promise<number | undefined> {
    const rows = await tx.all(`SELECT "version" FROM namespaces WHERE "key" = ?`, [namespaceKey]);
    return rows[0] === undefined ? undefined : num(rows[0]['version']);
  }

  loadRows(
    namespaceKey: string,
    keys: { readonly flags: readonly string[]; readonly segments: readonly string[] },
  ): Promise<NamespaceRows | undefined> {
    return this.session.read(async (tx) => {
      const nsRow = await this.namespaceRow(tx, namespaceKey);
      if (!nsRow) return undefined;
      const map = this.map.forNamespaceLoad();
      const flagKeys = [...new Set(keys.flags)];
      const segmentKeys = [...new Set(keys.segments)];
      const flagRows =
        flagKeys.length === 0
          ? []
          : await tx.all(
              `SELECT ${FLAG_COLS} FROM flags WHERE namespace_key = ? AND "key" IN (${placeholders(flagKeys.length)}) ORDER BY created_at, "key"`,
              [namespaceKey, ...flagKeys],
            );
      const page =
        flagKeys.length === 0
          ? { flags: [], rules: [], rollouts: [] }
          : await this.flagsOf(tx, map, namespaceKey, flagRows, flagKeys);
      const segments =
        segmentKeys.length === 0 ? [] : await this.segments(tx, map, namespaceKey, segmentKeys);
      return {
        namespace: map.namespace(nsRow),
        version: num(nsRow['version']),
        ...page,
        segments,
      };
    });
  }

  loadFlags(namespaceKey: string, flagKeys: readonly string[]): Promise<NamespaceRows | undefined> {
    return this.session.read(async (tx) => {
      const nsRow = await this.namespaceRow(tx, namespaceKey);
      if (!nsRow) return undefined;
      const map = this.map.forNamespaceLoad();
      const keys = [...new Set(flagKeys)];
      const flagRows =
        keys.length === 0
          ? []
          : await tx.all(
              `SELECT ${FLAG_COLS} FROM flags WHERE namespace_key = ? AND "key" IN (${placeholders(keys.length)}) ORDER BY created_at, "key"`,
              [namespaceKey, ...keys],
            );
      const page = await this.flagsOf(tx, map, namespaceKey, flagRows);
      const used = new Set<string>();
      for (const r of page.rules) for (const k of r.segmentKeys) used.add(k);
      for (const r of page.rollouts) for (const k of r.segment?.segmentKeys ?? []) used.add(k);
      const segments = used.size === 0 ? [] : await this.segments(tx, map, namespaceKey, [...used]);
      return { namespace: map.namespace(nsRow), version: num(nsRow['version']), ...page, segments };
    });
  }

  private async namespaceRow(tx: Tx, namespaceKey: string): Promise<Row | undefined> {
    const rows = await tx.all(`SELECT ${NS_COLS}, "version" FROM namespaces WHERE "key" = ?`, [
      namespaceKey,
    ]);
    return rows[0];
  }

  /** Segments with their constraints: all of them, or those with the given keys. */
  private async segments(
    tx: Tx,
    map: Mapper,
    namespaceKey: string,
    keys: readonly string[] | undefined,
  ) {
    const only = keys === undefined ? '' : ` AND segment_key IN (${placeholders(keys.length)})`;
    const onlyKeys = keys === undefined ? '' : ` AND "key" IN (${placeholders(keys.length)})`;
    const params = [namespaceKey, ...(keys ?? [])];
    const constraintsBySegment = groupBy(
      await tx.all(
        `SELECT ${CONSTRAINT_COLS} FROM constraints WHERE namespace_key = ?${only} ORDER BY created_at, id`,
        params,
      ),
      'segment_key',
      (c) => map.constraint(c),
    );
    return (
      await tx.all(
        `SELECT ${SEGMENT_COLS} FROM segments WHERE namespace_key = ?${onlyKeys} ORDER BY created_at, "key"`,
        params,
      )
    ).map((s) => map.segment(s, constraintsBySegment.get(String(s['key'])) ?? []));
  }

  /**
   * The flags of `flagRows` with their variants, and the rules and rollouts of `keys` (by
   * default the keys of `flagRows`; a flag deleted since has rules of none).
   */
  private async flagsOf(
    tx: Tx,
    map: Mapper,
    namespaceKey: string,
    flagRows: readonly Row[],
    keys: readonly string[] = flagRows.map((f) => String(f['key'])),
  ): Promise<{ flags: Flag[]; rules: Rule[]; rollouts: Rollout[] }> {
    if (keys.length === 0) return { flags: [], rules: [], rollouts: [] };
    const inKeys = `(${placeholders(keys.length)})`;
    const p = [namespaceKey, ...keys];
    const variantsByFlag = groupBy(
      await tx.all(
        `SELECT ${VARIANT_COLS} FROM variants WHERE namespace_key = ? AND flag_key IN ${inKeys} ORDER BY created_at, id`,
        p,
      ),
      'flag_key',
      (v) => map.variant(v),
    );
    const flags = flagRows.map((f) => map.flag(f, variantsByFlag.get(String(f['key'])) ?? []));
    const scope = { where: `r.namespace_key = ? AND r.flag_key IN ${inKeys}`, params: p };
    const rules = await assembleRules(
      tx,
      map,
      await tx.all(
        `SELECT ${RULE_COLS} FROM rules WHERE namespace_key = ? AND flag_key IN ${inKeys} ORDER BY flag_key, "rank", created_at, id`,
        p,
      ),
      scope,
    );
    const rollouts = await assembleRollouts(
      tx,
      map,
      await tx.all(
        `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE namespace_key = ? AND flag_key IN ${inKeys} ORDER BY flag_key, "rank", created_at, id`,
        p,
      ),
      scope,
    );
    return { flags, rules, rollouts };
  }
}
