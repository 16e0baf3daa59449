import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { TypeormTokenRepository } from '../../src/adapters/storage/typeorm/typeorm-token-repository';
import { clientFor, unary } from '../unit/grpc/grpc-test-support';
import { createIsolatedDatabase, type IsolatedDatabase } from '../support/databases';
import {
  BOOTSTRAP_TOKEN,
  bearer,
  captureLogger,
  grpcMetadata,
  http,
  sharedState,
  startInstance,
} from './auth-harness';

/*
 * The other configurations: authentication not required (nothing is checked, nothing is
 * installed), the token method disabled, and a SQL database whose rows are searched for the
 * plaintext tokens.
 */

describe('authentication.required: false', () => {
  it('installs nothing: no guard, no gRPC authenticator, the routes unwrapped', async () => {
    const vexil = await startInstance(sharedState(), { required: false });
    try {
      expect(vexil.auth.httpGuards).toEqual([]);
      expect(vexil.auth.grpcAuthenticator).toBeUndefined();
      const route = { method: 'GET', pattern: '/x', handle: jest.fn() };
      const [same] = vexil.auth.scopeEvaluationRoutes([route]);
      expect(same).toBe(route);
    } finally {
      await vexil.stop();
    }
  });

  it('serves every route without a token; /auth/v1/self is 401 as in Flipt', async () => {
    const vexil = await startInstance(sharedState(), { required: false });
    try {
      const port = vexil.httpPort;
      expect((await http(port, 'GET', '/api/v1/namespaces')).status).toBe(200);
      expect(
        (await http(port, 'GET', '/api/v1/namespaces', { headers: bearer('garbage') })).status,
      ).toBe(200);
      expect(
        (
          await http(port, 'POST', '/evaluate/v1/batch', {
            body: { requests: [{ flagKey: 'x', entityId: 'e' }] },
          })
        ).status,
      ).toBe(200);
      const created = await http(port, 'POST', '/auth/v1/method/token', { body: { name: 'n' } });
      expect(created.status).toBe(200);
      const { clientToken } = created.json() as { clientToken: string };
      expect((await http(port, 'GET', '/auth/v1/tokens')).status).toBe(200);
      // No interceptor means no caller, even with a valid token.
      const self = await http(port, 'GET', '/auth/v1/self', { headers: bearer(clientToken) });
      expect(self.status).toBe(401);
      expect(self.json()).toEqual({
        code: 16,
        message: 'request was not authenticated',
        details: [],
      });
      const flipt = clientFor('flipt.Flipt', vexil.grpcPort);
      try {
        await expect(unary(flipt, 'ListNamespaces', {})).resolves.toBeDefined();
      } finally {
        flipt.close();
      }
    } finally {
      await vexil.stop();
    }
  });
});

describe('authentication.methods.token.enabled: false', () => {
  it('has no token creation route and no bootstrap token', async () => {
    const shared = sharedState();
    const vexil = await startInstance(shared, { required: false, tokenMethodEnabled: false });
    try {
      const res = await http(vexil.httpPort, 'POST', '/auth/v1/method/token', {
        body: { name: 'n' },
      });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ code: 5, message: 'Not Found', details: [] });
      expect(await shared.repository.existsAuthentication('METHOD_TOKEN')).toBe(false);
      const methods = await http(vexil.httpPort, 'GET', '/auth/v1/method');
      const list = (methods.json() as { methods: Array<{ method: string; enabled: boolean }> })
        .methods;
      expect(list[0]).toEqual({ method: 'METHOD_TOKEN', enabled: false, sessionCompatible: false });
    } finally {
      await vexil.stop();
    }
  });
});

describe('on SQLite', () => {
  let db: IsolatedDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createIsolatedDatabase({ name: 'sqlite', url: 'sqlite' }, 'auth');
    dataSource = createDataSource(db.url);
    await runMigrations(dataSource);
  });

  afterAll(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await db.drop();
  });

  it('stores only hashes: the plaintext tokens are in no row and no log line', async () => {
    const logger = captureLogger();
    const shared = sharedState(new TypeormTokenRepository(dataSource));
    const vexil = await startInstance(shared, { logger });
    const port = vexil.httpPort;
    const issued: string[] = [BOOTSTRAP_TOKEN];
    try {
      for (const body of [
        { name: 'a' },
        { name: 'b', namespaceKey: 'default', expiresAt: '2099-01-01T00:00:00Z' },
      ]) {
        const res = await http(port, 'POST', '/auth/v1/method/token', {
          headers: bearer(BOOTSTRAP_TOKEN),
          body,
        });
        expect(res.status).toBe(200);
        issued.push((res.json() as { clientToken: string }).clientToken);
      }
      const flipt = clientFor('flipt.Flipt', vexil.grpcPort);
      try {
        for (const token of issued) {
          expect(
            (
              await http(port, 'GET', '/api/v1/namespaces/default/flags', {
                headers: bearer(token),
              })
            ).status,
          ).toBe(200);
          await unary(flipt, 'ListFlags', {}, grpcMetadata(bearer(token)));
        }
        // Refused attempts log nothing of what was presented either.
        await http(port, 'GET', '/api/v1/flags', { headers: bearer('presented-unknown-token') });
      } finally {
        flipt.close();
      }
      const rows = (await dataSource.query('SELECT * FROM authentications')) as Array<
        Record<string, unknown>
      >;
      expect(rows).toHaveLength(3);
      const dump = JSON.stringify(rows);
      for (const token of [...issued, 'presented-unknown-token']) {
        expect(dump).not.toContain(token);
        expect(logger.text()).not.toContain(token);
      }
      for (const row of rows) expect(String(row['hashed_client_token'])).toMatch(/^[\w-]{43}=$/);
    } finally {
      await vexil.stop();
    }
  });
});
