import type { CreateRuleRequest } from '../../src/domain/model';
import { ConfigStore } from '../../src/domain/services/config';
import type { Clock, EvaluationSource, IdGenerator, Storage } from '../../src/ports';
import {
  SequentialIds,
  TickingClock,
  flagRequest,
  segmentRequest,
  uniqueKey,
} from '../support/fixtures';

/** What a storage adapter's test hands the kit. */
export interface StorageUnderTest {
  readonly storage: Storage;
  /** Closes the storage and removes what the test created (a database, a file). */
  cleanup(): Promise<void>;
}

/**
 * Opens the adapter under test. `clock` and `ids` are the ones the suite writes with; an
 * adapter that stamps rows of its own (the default namespace) should use them too.
 */
export type OpenStorage = (deps: { clock: Clock; ids: IdGenerator }) => Promise<StorageUnderTest>;

/** The configuration use cases over the adapter, with its evaluation source beside them. */
export type StoreUnderTest = ConfigStore & EvaluationSource & { ping(): Promise<void> };

/**
 * What the resource files of the kit share: the store under test and the namespace of the
 * running test (both set by the time a test's own hooks run), and writers for its fixtures.
 */
export interface StorageContractContext {
  readonly store: StoreUnderTest;
  readonly storage: Storage;
  /** A namespace of the running test's own. */
  readonly ns: string;
  createFlag(
    key: string,
    extra?: Parameters<typeof flagRequest>[2],
  ): ReturnType<ConfigStore['createFlag']>;
  createSegment(
    key: string,
    extra?: Parameters<typeof segmentRequest>[2],
  ): ReturnType<ConfigStore['createSegment']>;
  createVariant(
    flagKey: string,
    key: string,
    attachment?: string,
  ): ReturnType<ConfigStore['createVariant']>;
  createRule(
    flagKey: string,
    segmentKeys: string[],
    rank: number,
    /** Fields beyond the request type, such as the deprecated `segmentKey`. */
    extra?: object,
  ): ReturnType<ConfigStore['createRule']>;
  thresholdRollout(
    flagKey: string,
    rank: number,
    percentage?: number,
  ): ReturnType<ConfigStore['createRollout']>;
  segmentRollout(
    flagKey: string,
    rank: number,
    segmentKeys: string[],
  ): ReturnType<ConfigStore['createRollout']>;
  /** The namespace's version (the running test's by default). */
  version(key?: string): Promise<number>;
}

/**
 * Opens the adapter once for the enclosing describe block and gives every test a namespace
 * of its own, so that one database serves the whole suite (earlier runs may have left other
 * namespaces behind).
 */
export function storageContractContext(open: OpenStorage): StorageContractContext {
  let store: StoreUnderTest | undefined;
  let storage: Storage | undefined;
  let cleanup: () => Promise<void> = async () => undefined;
  let ns = '';

  beforeAll(async () => {
    // Starts at the real time once the adapter is open, so that the default namespace a
    // migration seeded stays the oldest namespace, as it is in production.
    const clock = new TickingClock('first-reading');
    const ids = new SequentialIds();
    const opened = await open({ clock, ids });
    ({ storage, cleanup } = opened);
    const config = new ConfigStore({ unitOfWork: opened.storage.unitOfWork, clock, ids });
    const source = opened.storage.evaluationSource;
    store = Object.assign(Object.create(config) as ConfigStore, {
      getNamespaceVersion: (key: string) => source.getNamespaceVersion(key),
      loadNamespace: (key: string) => source.loadNamespace(key),
      loadFlags:
        source.loadFlags &&
        ((key: string, flagKeys: readonly string[]) => source.loadFlags!(key, flagKeys)),
      ping: () => opened.storage.ping(),
    });
  });
  afterAll(async () => {
    await cleanup();
  });
  beforeEach(async () => {
    ns = uniqueKey('ns');
    await opened().createNamespace({ key: ns, name: ns, description: '' });
  });

  const opened = (): StoreUnderTest => {
    if (store === undefined) throw new Error('the storage under test did not open');
    return store;
  };

  return {
    get store() {
      return opened();
    },
    get storage() {
      if (storage === undefined) throw new Error('the storage under test did not open');
      return storage;
    },
    get ns() {
      return ns;
    },
    createFlag: (key, extra = {}) => opened().createFlag(flagRequest(ns, key, extra)),
    createSegment: (key, extra = {}) => opened().createSegment(segmentRequest(ns, key, extra)),
    createVariant: (flagKey, key, attachment = '') =>
      opened().createVariant({
        namespaceKey: ns,
        flagKey,
        key,
        name: `${key} name`,
        description: '',
        attachment,
      }),
    createRule: (flagKey, segmentKeys, rank, extra = {}) =>
      opened().createRule({
        namespaceKey: ns,
        flagKey,
        segmentKeys,
        segmentOperator: segmentKeys.length > 1 ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR',
        rank,
        ...extra,
      } satisfies CreateRuleRequest),
    thresholdRollout: (flagKey, rank, percentage = 50) =>
      opened().createRollout({
        namespaceKey: ns,
        flagKey,
        rank,
        description: `rank ${rank}`,
        threshold: { percentage, value: true },
      }),
    segmentRollout: (flagKey, rank, segmentKeys) =>
      opened().createRollout({
        namespaceKey: ns,
        flagKey,
        rank,
        description: '',
        segment: {
          segmentKeys,
          segmentOperator: segmentKeys.length > 1 ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR',
          value: true,
        },
      }),
    version: async (key = ns) => {
      const v = await opened().getNamespaceVersion(key);
      if (v === undefined) throw new Error(`no version for ${key}`);
      return v;
    },
  };
}
