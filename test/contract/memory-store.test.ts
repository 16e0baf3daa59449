import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { describeStorageContract } from './storage-contract';

describeStorageContract('in-memory', async ({ clock }) => {
  const storage = new InMemoryStore({ clock });
  return { storage, cleanup: () => storage.close() };
});
