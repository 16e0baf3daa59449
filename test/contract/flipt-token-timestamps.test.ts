import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { TypeormTokenRepository } from '../../src/adapters/storage/typeorm/typeorm-token-repository';
import { enabledSqlBackends, type IsolatedDatabase, type SqlBackend } from '../support/databases';
import { createFliptDatabase, openRaw } from '../support/flipt-database';

/*
 * Token expiry and the cleanup lease compare times that Flipt wrote, in its driver's text form,
 * with times Vexil writes. On SQLite both are text, and on one day Flipt's form
 * (`2030-01-01 23:00:00+00:00`) sorts before Vexil's (`2030-01-01T09:00:00.000000Z`) whatever the
 * hour: the comparison must still follow the times.
 */

/** A UTC time as Flipt's driver for the backend writes it. */
const fliptTime = (backend: string, text: string): string =>
  backend === 'sqlite' ? `${text}+00:00` : text;

describe.each(enabledSqlBackends().map((b) => [b.name, b] as [string, SqlBackend]))(
  'times Flipt wrote, compared on %s',
  (_name, backend) => {
    let db: IsolatedDatabase;
    let dataSource: DataSource;
    let tokens: TypeormTokenRepository;

    beforeAll(async () => {
      db = await createFliptDatabase(backend, 'flipt-times');
      const raw = await openRaw(backend.name, db.url);
      try {
        const insert =
          'INSERT INTO authentications (id, hashed_client_token, method, metadata, expires_at, created_at, updated_at) ' +
          'VALUES (?, ?, 1, ?, ?, ?, ?)';
        const at = fliptTime(backend.name, '2030-01-01 08:00:00');
        for (const [id, expires] of [
          ['later-that-day', '2030-01-01 23:00:00'],
          ['an-hour-before', '2030-01-01 08:00:00.5'],
          ['a-microsecond-after', '2030-01-01 09:00:00.000001'],
        ] as const) {
          await raw.query(insert, [
            id,
            `hash-${id}`,
            '{}',
            fliptTime(backend.name, expires),
            at,
            at,
          ]);
        }
        await raw.query(
          'INSERT INTO operation_lock (operation, version, last_acquired_at, acquired_until) VALUES (?, 3, ?, ?)',
          ['held-by-flipt', at, fliptTime(backend.name, '2030-01-01 23:00:00')],
        );
      } finally {
        await raw.close();
      }
      dataSource = createDataSource(db.url);
      await dataSource.initialize();
      await runMigrations(dataSource);
      tokens = new TypeormTokenRepository(dataSource);
    });

    afterAll(async () => {
      await dataSource?.destroy();
      await db?.drop();
    });

    it('deletes only the tokens that expired before the given time', async () => {
      expect(
        await tokens.deleteExpiredAuthentications('METHOD_TOKEN', '2030-01-01T09:00:00.000000Z'),
      ).toBe(1);
      expect(await tokens.getAuthentication('an-hour-before')).toBeUndefined();
      expect((await tokens.getAuthentication('later-that-day'))?.expiresAt).toBe(
        '2030-01-01T23:00:00.000000Z',
      );
      expect(await tokens.getAuthentication('a-microsecond-after')).toBeDefined();
    });

    it('leaves a lease Flipt holds until later that day with Flipt', async () => {
      const attempt = await tokens.tryAcquireLock(
        'held-by-flipt',
        '2030-01-01T09:00:00.000000Z',
        '2030-01-01T10:00:00.000000Z',
      );
      expect(attempt).toEqual({ acquired: false, acquiredUntil: '2030-01-01T23:00:00.000000Z' });
    });
  },
);
