import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { SequentialIds, TickingClock } from '../support/fixtures';
import { describeStoreContract } from './store-contract';

describeStoreContract('in-memory', async () => ({
  store: new InMemoryStore({ clock: new TickingClock(), ids: new SequentialIds() }),
  cleanup: async () => undefined,
}));
