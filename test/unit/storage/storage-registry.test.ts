import { storageAdapterFor, STORAGE_ADAPTERS } from '../../../src/adapters/storage';
import { memoryStorageAdapter } from '../../../src/adapters/storage/memory/memory-storage-adapter';
import { sqlStorageAdapter } from '../../../src/adapters/storage/typeorm/sql-storage';
import { SequentialIds, TickingClock } from '../../support/fixtures';

describe('storage adapter registry', () => {
  it('finds the adapter by the scheme of db.url, a plain path going to SQL', () => {
    expect(storageAdapterFor('postgres://u:p@h/db')).toBe(sqlStorageAdapter);
    expect(storageAdapterFor('/var/opt/vexil/vexil.db')).toBe(sqlStorageAdapter);
    expect(storageAdapterFor(':memory:')).toBe(sqlStorageAdapter);
    expect(storageAdapterFor('memory:')).toBe(memoryStorageAdapter);
  });

  it('refuses an unknown scheme in one line that lists every adapter and hides the password', () => {
    expect(() => storageAdapterFor('oracle://u:secret@h/db')).toThrow(
      /^invalid database url "oracle:\/\/u:\*\*\*@h\/db": unsupported scheme "oracle:" \(supported: a file path, file:, .*, memory:\)$/,
    );
  });

  it('lets the adapter check the rest of the URL', () => {
    expect(() => storageAdapterFor('postgres://u:secret@/db')).toThrow(/not a valid URL/);
  });

  it('claims every scheme once', () => {
    const schemes = STORAGE_ADAPTERS.flatMap((a) => a.schemes);
    expect(new Set(schemes).size).toBe(schemes.length);
  });

  it('opens the in-memory store with the protected default namespace', async () => {
    const storage = await memoryStorageAdapter.open({
      url: 'memory:',
      pool: {},
      clock: new TickingClock(),
      ids: new SequentialIds(),
    });
    expect(storage.shared).toBe(false);
    expect(await storage.evaluationSource.getNamespaceVersion('default')).toBe(1);
    await storage.close();
    await expect(storage.ping()).rejects.toThrow('storage is closed');
  });
});
