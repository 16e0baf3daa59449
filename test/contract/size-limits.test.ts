import { ValidationError } from '../../src/domain/errors';
import { LIMITS } from '../../src/domain/validation';
import { createManagementService } from '../../src/domain/services/management-service';
import type { ManagementApi } from '../../src/domain/services/api';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import { ConfigStore } from '../../src/domain/services/config';
import { SequentialIds, TickingClock } from '../support/fixtures';
import {
  createIsolatedDatabase,
  enabledSqlBackends,
  type IsolatedDatabase,
} from '../support/databases';

/*
 * The size limits are what every database holds: a value at its limit, in the widest
 * characters, is stored and read back unchanged on each backend, and one more is refused by
 * validation, never by a driver.
 */

const EMOJI = '\u{1F600}'; // one character, four bytes of UTF-8
const wide = (chars: number): string => EMOJI.repeat(chars);
const textOf = (bytes: number): string => 'é'.repeat(Math.floor(bytes / 2)) + 'x'.repeat(bytes % 2);

for (const backend of enabledSqlBackends()) {
  describe(`size limits on ${backend.name}`, () => {
    let db: IsolatedDatabase;
    let store: SqlStorage;
    let api: ManagementApi;

    beforeAll(async () => {
      db = await createIsolatedDatabase(backend, 'limits');
      const dataSource = createDataSource(db.url);
      await dataSource.initialize();
      await runMigrations(dataSource);
      const clock = new TickingClock(Date.now());
      const ids = new SequentialIds();
      store = new SqlStorage(dataSource, { clock, ids });
      api = createManagementService({
        config: new ConfigStore({ unitOfWork: store.unitOfWork, clock, ids }),
        notifier: { namespaceChanged: () => undefined },
      });
    });

    afterAll(async () => {
      await store?.close();
      await db?.drop();
    });

    it('stores every value at its limit and reads it back unchanged', async () => {
      const key = 'k'.repeat(LIMITS.keyChars);
      const name = wide(LIMITS.nameChars);
      const description = textOf(LIMITS.textBytes);
      await api.createNamespace({ key, name, description });
      await expect(api.getNamespace({ key, reference: '' })).resolves.toMatchObject({
        name,
        description,
      });
      const flag = await api.createFlag({
        namespaceKey: key,
        key,
        name,
        description,
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
      });
      expect(flag).toMatchObject({ key, name, description });
      const variant = await api.createVariant({
        namespaceKey: key,
        flagKey: key,
        key: wide(LIMITS.keyChars),
        name,
        description,
        attachment: '',
      });
      await api.createSegment({
        namespaceKey: key,
        key,
        name,
        description,
        matchType: 'ALL_MATCH_TYPE',
      });
      const value = textOf(LIMITS.textBytes);
      const constraint = await api.createConstraint({
        namespaceKey: key,
        segmentKey: key,
        type: 'STRING_COMPARISON_TYPE',
        property: wide(LIMITS.nameChars),
        operator: 'eq',
        value,
        description,
      });
      const segment = await api.getSegment({ namespaceKey: key, key, reference: '' });
      expect(segment.constraints).toEqual([
        expect.objectContaining({ id: constraint.id, value, description }),
      ]);
      const read = await api.getFlag({ namespaceKey: key, key, reference: '' });
      expect(read.variants).toEqual([
        expect.objectContaining({ id: variant.id, key: wide(LIMITS.keyChars), description }),
      ]);
      await api.createFlag({
        namespaceKey: key,
        key: 'b',
        name: 'b',
        description: '',
        enabled: true,
        type: 'BOOLEAN_FLAG_TYPE',
      });
      const rollout = await api.createRollout({
        namespaceKey: key,
        flagKey: 'b',
        rank: 1,
        description,
        threshold: { percentage: 50, value: true },
      });
      expect(rollout.description).toBe(description);
    });

    it('refuses one more with a validation error, before the database sees it', async () => {
      const attempts: Array<() => Promise<unknown>> = [
        () =>
          api.createNamespace({ key: 'k'.repeat(LIMITS.keyChars + 1), name: 'n', description: '' }),
        () => api.createNamespace({ key: 'n2', name: wide(LIMITS.nameChars + 1), description: '' }),
        () =>
          api.createNamespace({
            key: 'n3',
            name: 'n',
            description: textOf(LIMITS.textBytes + 1),
          }),
        () =>
          api.createConstraint({
            namespaceKey: 'default',
            segmentKey: 's',
            type: 'STRING_COMPARISON_TYPE',
            property: 'p',
            operator: 'eq',
            value: textOf(LIMITS.textBytes + 1),
            description: '',
          }),
      ];
      for (const attempt of attempts) {
        await expect(attempt()).rejects.toBeInstanceOf(ValidationError);
      }
    });
  });
}
