import { describeEvaluationSourceContract } from './evaluation-source-contract';
import { describeFlagContract } from './flag-contract';
import { describeNamespaceContract } from './namespace-contract';
import { describeRolloutContract } from './rollout-contract';
import { describeRuleContract } from './rule-contract';
import { describeSegmentContract } from './segment-contract';
import { storageContractContext, type OpenStorage } from './storage-contract-context';
import { describeUnitOfWorkContract } from './unit-of-work-contract';

export type { OpenStorage, StorageUnderTest, StoreUnderTest } from './storage-contract-context';

/**
 * The storage contract kit: what every storage adapter (in-memory, SQLite, PostgreSQL,
 * MariaDB, ...) must do, written only against the ports. Call it from the adapter's test
 * file with a factory. The rules (Flipt's messages, existence, uniqueness) are the domain's,
 * so most cases run the domain's ConfigStore over the adapter's unit of work: they prove the
 * adapter stores, loads, orders, pages and translates driver errors as the rules need.
 *
 * `open()` runs once per suite; every test works in a namespace of its own, so one database
 * can serve the whole suite (and earlier runs may have left other namespaces behind).
 * Ordering assertions assume the clock moves between two writes, as a real clock does at
 * microsecond precision.
 */
export function describeStorageContract(name: string, open: OpenStorage): void {
  describe(`Storage contract: ${name}`, () => {
    const c = storageContractContext(open);
    const { createFlag, createVariant } = c;

    // ---- basics ------------------------------------------------------------------------

    it('answers a ping', async () => {
      await expect(c.store.ping()).resolves.toBeUndefined();
    });

    describeNamespaceContract(c);
    describeFlagContract(c);
    describeSegmentContract(c);
    describeRuleContract(c);
    describeRolloutContract(c);
    describeEvaluationSourceContract(c);

    // ---- isolation -----------------------------------------------------------------------

    it('hands out copies that callers cannot use to change stored state', async () => {
      await createFlag('f1', { metadata: { a: { b: 1 } } });
      await createVariant('f1', 'v1');
      const flag = (await c.store.getFlag(c.ns, 'f1')) as unknown as {
        name: string;
        metadata: { a: { b: number } };
        variants: unknown[];
      };
      flag.name = 'mutated';
      flag.metadata.a.b = 2;
      flag.variants.length = 0;
      const again = await c.store.getFlag(c.ns, 'f1');
      expect(again.name).toBe('f1 name');
      expect(again.metadata).toEqual({ a: { b: 1 } });
      expect(again.variants).toHaveLength(1);
    });
  });

  describeUnitOfWorkContract(name, open);
}
