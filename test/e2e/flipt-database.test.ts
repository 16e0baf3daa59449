import { crc32 } from 'node:zlib';
import { FLIPT_COLUMNS } from '../../src/adapters/storage/typeorm/migrations/adopt-flipt-schema';
import { enabledSqlBackends, type IsolatedDatabase, type SqlBackend } from '../support/databases';
import {
  createFliptDatabase,
  describeTables,
  FLIPT_TOKEN,
  openRaw,
  type Row,
} from '../support/flipt-database';
import { startVexil, type VexilProcess } from '../support/vexil-process';

/*
 * A database that Flipt v1.61 created and filled is served by Vexil in place, and stays a
 * database Flipt v1.61 can be started on again: its tables keep every column as Flipt declared
 * it, schema_migrations is untouched, and what Vexil writes is in forms Flipt's drivers read.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FLIPT_TABLES = Object.keys(FLIPT_COLUMNS);
/** The only columns Vexil adds to Flipt's tables, each with a default Flipt's inserts get. */
const ADDED = [
  'namespaces.version',
  'rule_segments.position',
  'rollout_segment_references.position',
];

/** Flipt's variant bucketing (reference §12), computed here independently of Vexil. */
function variantFor(flagKey: string, entityId: string, split: Array<[string, number]>): string {
  const bucket = crc32(Buffer.from(flagKey + entityId)) % 1000;
  let bound = 0;
  for (const [variant, rollout] of split) {
    bound += Math.trunc(rollout * 10);
    if (bucket + 1 <= bound) return variant;
  }
  return '';
}
const thresholdHit = (flagKey: string, entityId: string, percentage: number): boolean =>
  crc32(Buffer.from(entityId + flagKey)) % 100 < percentage;

describe.each(enabledSqlBackends().map((b) => [b.name, b] as [string, SqlBackend]))(
  'a Flipt v1.61 database on %s',
  (_name, backend) => {
    let db: IsolatedDatabase;
    let vexil: VexilProcess | undefined;
    let schemaBefore: Record<string, Record<string, string>>;
    let migrationsBefore: Row[];

    const call = async (method: string, path: string, body?: unknown): Promise<[number, Json]> => {
      if (!vexil) throw new Error('vexil is not running');
      const res = await fetch(vexil.baseUrl + path, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${FLIPT_TOKEN}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return [res.status, text === '' ? {} : (JSON.parse(text) as Json)];
    };
    const variant = async (flagKey: string, entityId: string, context = {}, ns = 'default') =>
      (
        await call('POST', '/evaluate/v1/variant', {
          namespaceKey: ns,
          flagKey,
          entityId,
          context,
        })
      )[1];
    const boolean = async (flagKey: string, entityId: string, context = {}) =>
      (await call('POST', '/evaluate/v1/boolean', { flagKey, entityId, context }))[1];

    beforeAll(async () => {
      db = await createFliptDatabase(backend, 'flipt');
      const raw = await openRaw(backend.name, db.url);
      try {
        schemaBefore = await describeTables(backend.name, raw, FLIPT_TABLES);
        migrationsBefore = await raw.query('SELECT version, dirty FROM schema_migrations');
      } finally {
        await raw.close();
      }
      vexil = await startVexil({
        VEXIL_DB_URL: db.url,
        VEXIL_AUTHENTICATION_REQUIRED: 'true',
        VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      });
    }, 60_000);

    afterAll(async () => {
      await vexil?.stop();
      await db?.drop();
    });

    it('is recognised at start and adopted with additions only', () => {
      const line = vexil?.lines.find((l) => l.includes('migrations applied'));
      expect(line).toContain('InitialSchema1732147200000');
      expect(vexil?.lines.join('\n')).not.toMatch(/"level":"error"/);
    });

    it('accepts the token Flipt issued, and bootstraps no other', async () => {
      const [status, list] = await call('GET', '/auth/v1/tokens');
      expect(status).toBe(200);
      expect(list['authentications']).toHaveLength(1);
      expect(list['authentications'][0]).toMatchObject({
        id: '90000000-0000-4000-8000-000000000001',
        method: 'METHOD_TOKEN',
        metadata: { 'io.flipt.auth.token.name': 'ci' },
      });
    });

    it('evaluates variant flags as Flipt does', async () => {
      expect(await variant('checkout', 'e1', { plan: 'pro', age: '30' })).toMatchObject({
        match: true,
        reason: 'MATCH_EVALUATION_REASON',
        variantKey: 'blue',
        variantAttachment: '{"n":1,"color":"blue"}',
        segmentKeys: ['users'],
      });
      // Both segments of the AND rule match: the bucket decides between 30 % blue, 70 % green.
      for (const entity of ['u-7', 'u-8', 'x-1', 'x-2', 'x-3', 'x-4']) {
        const context = entity.startsWith('u') ? {} : { beta: 'true' };
        const result = await variant('checkout', entity, context);
        expect(result).toMatchObject({ match: true, reason: 'MATCH_EVALUATION_REASON' });
        expect(result['variantKey']).toBe(
          variantFor('checkout', entity, [
            ['blue', 30],
            ['green', 70],
          ]),
        );
        expect([...(result['segmentKeys'] as string[])].sort()).toEqual(['beta', 'everyone']);
      }
      expect(await variant('checkout', 'e2', { plan: 'free', beta: 'false' })).toMatchObject({
        match: false,
        reason: 'DEFAULT_EVALUATION_REASON',
        variantKey: 'green',
      });
      expect(await variant('banner', 'e1')).toMatchObject({
        match: false,
        reason: 'FLAG_DISABLED_EVALUATION_REASON',
        variantKey: 'on',
      });
      expect(await variant('search', 'e1', {}, 'team')).toMatchObject({
        match: true,
        variantKey: 'new',
        segmentKeys: ['everyone'],
      });
    });

    it('evaluates boolean flags as Flipt does', async () => {
      expect(await boolean('dark-mode', 'u-8')).toMatchObject({
        enabled: true,
        reason: 'MATCH_EVALUATION_REASON',
      });
      expect(await boolean('dark-mode', 'z', { signup: '2023-06-01' })).toMatchObject({
        enabled: true,
        reason: 'MATCH_EVALUATION_REASON',
      });
      for (const entity of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
        const hit = thresholdHit('dark-mode', entity, 50);
        expect(await boolean('dark-mode', entity, { beta: 'false' })).toMatchObject({
          enabled: hit,
          reason: hit ? 'MATCH_EVALUATION_REASON' : 'DEFAULT_EVALUATION_REASON',
        });
      }
      expect(await boolean('kill-switch', 'a')).toMatchObject({
        enabled: true,
        reason: 'DEFAULT_EVALUATION_REASON',
      });
    });

    it("reads Flipt's rows as Flipt's API shows them", async () => {
      const [, flag] = await call('GET', '/api/v1/namespaces/default/flags/checkout');
      expect(flag).toMatchObject({
        key: 'checkout',
        type: 'VARIANT_FLAG_TYPE',
        enabled: true,
        metadata: { team: 'web' },
        defaultVariant: { key: 'green' },
      });
      expect(flag['createdAt']).toMatch(/^2024-05-01T09:10:\d\d(\.\d+)?Z$/);
      const [, rules] = await call('GET', '/api/v1/namespaces/default/flags/checkout/rules');
      // Flipt's rule_segments rows have no position: their keys come in key order.
      expect(
        rules['rules'].map((r: Json) => [r['rank'], r['segmentOperator'], r['segmentKeys']]),
      ).toEqual([
        [1, 'OR_SEGMENT_OPERATOR', []],
        [2, 'AND_SEGMENT_OPERATOR', ['beta', 'everyone']],
      ]);
      const [, segment] = await call('GET', '/api/v1/namespaces/default/segments/beta');
      expect(segment['matchType']).toBe('ANY_MATCH_TYPE');
      expect(segment['constraints'].map((c: Json) => c['type'])).toEqual([
        'BOOLEAN_COMPARISON_TYPE',
        'ENTITY_ID_COMPARISON_TYPE',
        'DATETIME_COMPARISON_TYPE',
      ]);
    });

    it('exports what Flipt stored as Flipt exports it', async () => {
      const res = await fetch(`${vexil?.baseUrl}/api/v1/namespaces/team/export`, {
        headers: { authorization: `Bearer ${FLIPT_TOKEN}` },
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(
        [
          'version: "1.4"',
          'namespace:',
          '  key: team',
          '  name: Team',
          '  description: the team',
          'flags:',
          '  - key: search',
          '    name: search',
          '    type: VARIANT_FLAG_TYPE',
          '    enabled: true',
          '    variants:',
          '      - key: new',
          '        name: new',
          '    rules:',
          '      - segment: everyone',
          '        distributions:',
          '          - variant: new',
          '            rollout: 100',
          'segments:',
          '  - key: everyone',
          '    name: everyone',
          '    match_type: ALL_MATCH_TYPE',
          '',
        ].join('\n'),
      );
    });

    it("writes through Vexil leave Flipt's tables and schema_migrations as Flipt expects", async () => {
      const ns = '/api/v1/namespaces/default';
      expect(
        (await call('POST', `${ns}/flags`, { key: 'new', name: 'New', enabled: true }))[0],
      ).toBe(200);
      const [, v] = await call('POST', `${ns}/flags/new/variants`, {
        key: 'a',
        attachment: '{"x": 1}',
      });
      const [, rule] = await call('POST', `${ns}/flags/new/rules`, {
        segmentKeys: ['users', 'beta'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        rank: 1,
      });
      expect(rule['segmentKeys']).toEqual(['users', 'beta']);
      await call('POST', `${ns}/flags/new/rules/${rule['id']}/distributions`, {
        variantId: v['id'],
        rollout: 100,
      });
      // A namespace deleted and created again continues its versions (namespace_tombstones).
      const namespace = { key: 'tmp', name: 'Tmp' };
      expect((await call('POST', '/api/v1/namespaces', namespace))[0]).toBe(200);
      expect((await call('DELETE', '/api/v1/namespaces/tmp'))[0]).toBe(200);
      expect((await call('POST', '/api/v1/namespaces', namespace))[0]).toBe(200);
      // Keys compare as the database's collation says: Flipt's MySQL tables ignore case.
      expect((await call('POST', '/api/v1/namespaces', { key: 'TMP', name: 'TMP' }))[0]).toBe(
        backend.name === 'mysql' ? 400 : 200,
      );
      await call('PUT', `${ns}/flags/checkout`, {
        name: 'Checkout',
        enabled: true,
        defaultVariantId: '',
      });
      expect(await variant('new', 'u-7', { plan: 'pro', age: '20' })).toMatchObject({
        match: true,
        variantKey: 'a',
      });
      await vexil?.stop();
      vexil = undefined;

      const raw = await openRaw(backend.name, db.url);
      try {
        expect(await raw.query('SELECT version, dirty FROM schema_migrations')).toEqual(
          migrationsBefore,
        );
        const after = await describeTables(backend.name, raw, FLIPT_TABLES);
        for (const table of FLIPT_TABLES) {
          const added = Object.keys(after[table] ?? {}).filter(
            (c) => !(c in (schemaBefore[table] ?? {})),
          );
          expect(added.map((c) => `${table}.${c}`)).toEqual(
            ADDED.filter((a) => a.startsWith(`${table}.`)),
          );
          for (const [column, declared] of Object.entries(schemaBefore[table] ?? {})) {
            expect(`${table}.${column} ${after[table]?.[column]}`).toBe(
              `${table}.${column} ${declared}`,
            );
          }
        }
        // The columns Flipt reads, read as Flipt's queries name them.
        const flags = await raw.query(
          `SELECT namespace_key, ${backend.name === 'mysql' ? '`key`' : '"key"'}, name, description, enabled, type, default_variant_id, metadata, created_at, updated_at FROM flags WHERE namespace_key = 'default' ORDER BY created_at`,
        );
        expect(flags.map((f) => f['key'])).toEqual([
          'checkout',
          'banner',
          'dark-mode',
          'kill-switch',
          'new',
        ]);
        expect(flags[0]?.['default_variant_id']).toBeNull();
        if (backend.name === 'sqlite') {
          // go-sqlite3 parses a TIMESTAMP column in these forms (after dropping a trailing Z);
          // a value in no such form would fail Flipt's scan.
          const goSqlite =
            /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([+-]\d{2}:\d{2}|Z)?$/;
          for (const table of ['namespaces', 'flags', 'variants', 'rules', 'distributions']) {
            for (const row of await raw.query(`SELECT created_at, updated_at FROM ${table}`)) {
              expect(String(row['created_at'])).toMatch(goSqlite);
              expect(String(row['updated_at'])).toMatch(goSqlite);
            }
          }
        }
        const attachment = await raw.query(
          `SELECT attachment FROM variants WHERE flag_key = 'new'`,
        );
        const stored = attachment[0]?.['attachment'];
        // pg and mysql2 hand JSON columns over parsed.
        expect(typeof stored === 'string' ? JSON.parse(stored) : stored).toEqual({ x: 1 });
      } finally {
        await raw.close();
      }
    });

    it('starts again on the adopted database with nothing left to apply', async () => {
      vexil = await startVexil({
        VEXIL_DB_URL: db.url,
        VEXIL_AUTHENTICATION_REQUIRED: 'true',
        VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      });
      expect(vexil.lines.some((l) => l.includes('migrations applied'))).toBe(false);
      expect(await variant('new', 'u-7', { plan: 'pro', age: '20' })).toMatchObject({
        variantKey: 'a',
      });
    }, 30_000);
  },
);

describe('a Flipt database Vexil cannot take over as it is', () => {
  const sqlite: SqlBackend = { name: 'sqlite', url: 'sqlite' };

  const startFails = async (db: IsolatedDatabase): Promise<string> => {
    const vexil = await startVexil({ VEXIL_DB_URL: db.url }, { waitForServing: false });
    expect(await vexil.exited).toBe(1);
    return vexil.lines.join('\n');
  };

  it('refuses one whose Flipt migration stopped half-way, changing nothing', async () => {
    const db = await createFliptDatabase(sqlite, 'dirty', {
      migration: { version: 16, dirty: true },
    });
    try {
      const out = await startFails(db);
      expect(out).toContain('start-up failed');
      expect(out).toContain('schema_migrations version 16 is marked dirty');
      const raw = await openRaw('sqlite', db.url);
      const columns = await describeTables('sqlite', raw, ['namespaces']);
      await raw.close();
      expect(Object.keys(columns['namespaces'] ?? {})).not.toContain('version');
    } finally {
      await db.drop();
    }
  }, 30_000);

  it("refuses one older than Flipt v1.61's schema, naming what is missing", async () => {
    const db = await createFliptDatabase(sqlite, 'old', {
      alter: 'ALTER TABLE flags DROP COLUMN metadata',
    });
    try {
      const out = await startFails(db);
      expect(out).toContain("not Flipt v1.61's schema (missing: flags.metadata)");
      expect(out).toContain('flipt migrate');
    } finally {
      await db.drop();
    }
  }, 30_000);
});
