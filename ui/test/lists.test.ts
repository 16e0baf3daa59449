import { pageOf, queryFlags, searchWords, type ListableFlag } from '../src/lib/flag-list';
import { changedOrder, move, moveById } from '../src/lib/reorder';
import {
  distributionProblems,
  distributionTotal,
  evenSplit,
  bucketRanges,
} from '../src/lib/distributions';
import { keyError, keyFromName } from '../src/lib/keys';

const flag = (key: string, name: string, updatedAt: string, enabled = true): ListableFlag => ({
  key,
  name,
  enabled,
  type: 'BOOLEAN_FLAG_TYPE',
  createdAt: updatedAt,
  updatedAt,
});

describe('flag list', () => {
  const flags = [
    flag('flag-10', 'Checkout v2', '2024-01-03T00:00:00Z'),
    flag('flag-2', 'Dark mode', '2024-01-01T00:00:00Z', false),
    flag('flag-1', 'New checkout', '2024-01-02T00:00:00Z'),
  ];

  it('searches key and name for every word, ignoring case', () => {
    expect(
      queryFlags(flags, { search: 'CHECKOUT', sort: 'key', direction: 'asc' }).map((f) => f.key),
    ).toEqual(['flag-1', 'flag-10']);
    expect(
      queryFlags(flags, { search: 'new check', sort: 'key', direction: 'asc' }).map((f) => f.key),
    ).toEqual(['flag-1']);
    expect(searchWords('  a  b ')).toEqual(['a', 'b']);
  });

  it('sorts keys naturally (flag-2 before flag-10) and by date either way', () => {
    expect(
      queryFlags(flags, { search: '', sort: 'key', direction: 'asc' }).map((f) => f.key),
    ).toEqual(['flag-1', 'flag-2', 'flag-10']);
    expect(
      queryFlags(flags, { search: '', sort: 'updated', direction: 'desc' }).map((f) => f.key),
    ).toEqual(['flag-10', 'flag-1', 'flag-2']);
  });

  it('filters by status', () => {
    expect(
      queryFlags(flags, { search: '', sort: 'key', direction: 'asc', status: 'disabled' }).map(
        (f) => f.key,
      ),
    ).toEqual(['flag-2']);
  });

  it('does not reorder the cached list it was given', () => {
    const before = flags.map((f) => f.key);
    queryFlags(flags, { search: '', sort: 'name', direction: 'desc' });
    expect(flags.map((f) => f.key)).toEqual(before);
  });

  it('pages and clamps the page into range', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => i);
    expect(pageOf(many, 3, 50)).toMatchObject({
      page: 3,
      pageCount: 200,
      from: 101,
      to: 150,
      total: 10_000,
    });
    expect(pageOf(many, 999, 50)).toMatchObject({ page: 200, from: 9951, to: 10_000 });
    expect(pageOf(many, Number.NaN, 50).page).toBe(1);
    expect(pageOf([], 1, 50)).toMatchObject({ page: 1, pageCount: 1, from: 0, to: 0 });
  });
});

describe('reordering', () => {
  const items = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  it('moves an item and reports the new order only when it changed', () => {
    expect(move(items, 0, 2).map((i) => i.id)).toEqual(['b', 'c', 'a']);
    expect(moveById(items, 'c', 'a').map((i) => i.id)).toEqual(['c', 'a', 'b']);
    expect(move(items, 0, 5)).toEqual(items);
    expect(changedOrder(items, move(items, 1, 0))).toEqual(['b', 'a', 'c']);
    expect(changedOrder(items, items)).toBeUndefined();
  });
});

describe('distributions', () => {
  it('sums without float noise and flags sums over 100', () => {
    const thirds = [33.33, 33.33, 33.34].map((rollout, i) => ({ variantId: `v${i}`, rollout }));
    expect(distributionTotal(thirds)).toBe(100);
    expect(distributionProblems(thirds)).toEqual([]);
    expect(
      distributionProblems([
        { variantId: 'a', rollout: 60 },
        { variantId: 'b', rollout: 50 },
      ]),
    ).toEqual([{ kind: 'over', total: 110 }]);
  });

  it('refuses values out of 0..100 and a variant listed twice', () => {
    expect(distributionProblems([{ variantId: 'a', rollout: -1 }])).toContainEqual({
      kind: 'range',
      index: 0,
    });
    expect(
      distributionProblems([
        { variantId: 'a', rollout: 10 },
        { variantId: 'a', rollout: 10 },
      ]),
    ).toContainEqual({
      kind: 'duplicate',
      index: 1,
    });
  });

  it('splits evenly to exactly 100', () => {
    expect(evenSplit(3)).toEqual([33.34, 33.33, 33.33]);
    expect(evenSplit(4)).toEqual([25, 25, 25, 25]);
    expect(evenSplit(0)).toEqual([]);
  });

  it('lays distributions end to end on the 0..1000 bucket scale', () => {
    expect(bucketRanges([50, 25])).toEqual([
      { from: 0, to: 500 },
      { from: 500, to: 750 },
    ]);
  });
});

describe('keys', () => {
  it('suggests a valid key from a name', () => {
    expect(keyFromName('New checkout!')).toBe('new-checkout');
    expect(keyFromName('Café au lait')).toBe('cafe-au-lait');
    expect(keyError(keyFromName('  Über Flag 2 '))).toBeUndefined();
  });

  it('explains an invalid key', () => {
    expect(keyError('')).toBe('Enter a key.');
    expect(keyError('has space')).toMatch(/letters, digits/i);
    expect(keyError('a,b_c-1')).toBeUndefined();
  });
});
