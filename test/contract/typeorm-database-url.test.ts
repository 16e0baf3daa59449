import { UnavailableError } from '../../src/domain/errors';
import {
  DatabaseUrlError,
  parseDatabaseUrl,
} from '../../src/adapters/storage/typeorm/database-url';
import { openDataSource } from '../../src/adapters/storage/typeorm/data-source';

describe('parseDatabaseUrl', () => {
  test.each([
    ['file:/var/opt/flipt/flipt.db', '/var/opt/flipt/flipt.db'],
    ['file:data/flipt.db?cache=shared&mode=rwc&_fk=true', 'data/flipt.db'],
    ['sqlite:///var/flipt.db', '/var/flipt.db'],
    ['sqlite3:///var/flipt.db', '/var/flipt.db'],
    ['/var/flipt.db', '/var/flipt.db'],
    ['flipt.db', 'flipt.db'],
    [':memory:', ':memory:'],
    ['file::memory:', ':memory:'],
  ])('reads %s as the SQLite file %s', (url, path) => {
    expect(parseDatabaseUrl(url)).toEqual({ dialect: 'sqlite', path });
  });

  test('reads PostgreSQL URLs, with percent-decoded credentials and parameters', () => {
    expect(
      parseDatabaseUrl('postgresql://us%40r:p%3Ass@db.example:6543/flipt?sslmode=require'),
    ).toEqual({
      dialect: 'postgres',
      host: 'db.example',
      port: 6543,
      username: 'us@r',
      password: 'p:ss',
      database: 'flipt',
      params: { sslmode: 'require' },
    });
    expect(parseDatabaseUrl('postgres://u@h/d')).toMatchObject({ port: 5432, password: '' });
  });

  test('reads MySQL and CockroachDB URLs with their default ports', () => {
    expect(parseDatabaseUrl('mysql://u:p@h/flipt')).toMatchObject({ dialect: 'mysql', port: 3306 });
    for (const scheme of ['cockroach', 'cockroachdb', 'crdb']) {
      expect(parseDatabaseUrl(`${scheme}://root@h/defaultdb?sslmode=disable`)).toMatchObject({
        dialect: 'cockroachdb',
        port: 26257,
      });
    }
  });

  test.each([
    ['', /must not be empty/],
    ['oracle://u:secret@h/db', /unsupported scheme "oracle:"/],
    ['postgres://u:secret@h', /no database name/],
    ['postgres://u:secret@h:99999/db', /not a valid URL|bad port/],
    ['sqlite://', /no database file path/],
  ])('rejects %j with one clear line that hides the password', (url, message) => {
    let error: unknown;
    try {
      parseDatabaseUrl(url);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DatabaseUrlError);
    const text = (error as Error).message;
    expect(text).toMatch(message);
    expect(text).not.toContain('secret');
    expect(text).not.toContain('\n');
  });
});

describe('an unreachable database', () => {
  test('fails to open with UnavailableError naming the storage, without the password', async () => {
    // Port 1 on loopback: nothing listens there, the connect is refused at once.
    for (const [url, dialect] of [
      ['postgres://vexil:hunter2@127.0.0.1:1/vexil', 'postgres'],
      ['mysql://vexil:hunter2@127.0.0.1:1/vexil', 'mysql'],
    ] as const) {
      const error = await openDataSource(url).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(UnavailableError);
      const message = (error as Error).message;
      expect(message).toMatch(new RegExp(`^storage unavailable: ${dialect}: .*ECONNREFUSED`));
      expect(message).not.toContain('hunter2');
    }
  });
});
