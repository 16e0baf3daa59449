import type { Flag, Namespace, NamespaceData, Segment } from '../../../src/domain/model';
import { compileNamespace, patchNamespace } from '../../../src/domain/evaluation';

/*
 * A patched namespace keeps creation order, as a whole load has it, when one change covers
 * several versions: an item updated stays in place, one deleted and created again goes last.
 */

const AT = '2024-05-01T10:00:00.000000Z';
const LATER = '2024-05-02T10:00:00.000000Z';
const namespace: Namespace = {
  key: 'ns',
  name: 'ns',
  description: '',
  protected: false,
  createdAt: AT,
  updatedAt: AT,
};

const flag = (key: string, createdAt = AT, enabled = true): Flag => ({
  namespaceKey: 'ns',
  key,
  name: key,
  description: '',
  enabled,
  type: 'BOOLEAN_FLAG_TYPE',
  createdAt,
  updatedAt: createdAt,
  variants: [],
});

const segment = (key: string, createdAt = AT): Segment => ({
  namespaceKey: 'ns',
  key,
  name: key,
  description: '',
  matchType: 'ALL_MATCH_TYPE',
  createdAt,
  updatedAt: createdAt,
  constraints: [],
});

const base: NamespaceData = {
  namespace,
  version: 1,
  flags: [flag('a'), flag('b'), flag('c')],
  segments: [segment('s1'), segment('s2'), segment('s3')],
  rules: [],
  rollouts: [],
};

const rows = (flags: Flag[], segments: Segment[] = []) => ({
  namespace,
  version: 2,
  flags,
  segments,
  rules: [],
  rollouts: [],
});

describe('patchNamespace', () => {
  it('keeps an updated flag in place and moves one created again to the end', () => {
    const updated = patchNamespace(compileNamespace(base), rows([flag('b', AT, false)]), {
      flags: ['b'],
      segments: [],
    });
    expect([...updated.flags.keys()]).toEqual(['a', 'b', 'c']);
    expect(updated.flags.get('b')?.enabled).toBe(false);

    const recreated = patchNamespace(compileNamespace(base), rows([flag('b', LATER)]), {
      flags: ['b'],
      segments: [],
    });
    expect([...recreated.flags.keys()]).toEqual(['a', 'c', 'b']);
    expect(recreated.data.flags.map((f) => f.key)).toEqual(['a', 'c', 'b']);
  });

  it('drops what is gone, appends what is new, and does the same for segments', () => {
    const patched = patchNamespace(
      compileNamespace(base),
      rows([flag('d')], [segment('s1', LATER), segment('s4')]),
      { flags: ['a', 'd'], segments: ['s1', 's2', 's4'] },
    );
    expect([...patched.flags.keys()]).toEqual(['b', 'c', 'd']);
    expect([...patched.segments.keys()]).toEqual(['s3', 's1', 's4']);
    expect(patched.data).toEqual({
      ...rows(
        [flag('b'), flag('c'), flag('d')],
        [segment('s3'), segment('s1', LATER), segment('s4')],
      ),
    });
  });
});
