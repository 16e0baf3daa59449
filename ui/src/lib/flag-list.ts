/**
 * Search, sort and paging of a namespace's flags in the browser. The API lists flags without
 * search, so the list is fetched once and cached; these functions keep each keystroke cheap
 * at ten thousand flags: one pass to filter, a sort only when the order changes.
 */

export type SortKey = 'key' | 'name' | 'updated' | 'created';
export type SortDirection = 'asc' | 'desc';

export interface ListableFlag {
  readonly key: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly type: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface FlagQuery {
  readonly search: string;
  readonly sort: SortKey;
  readonly direction: SortDirection;
  readonly status?: 'all' | 'enabled' | 'disabled';
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

export function compareFlags(sort: SortKey): (a: ListableFlag, b: ListableFlag) => number {
  switch (sort) {
    case 'key':
      return (a, b) => collator.compare(a.key, b.key);
    case 'name':
      return (a, b) => collator.compare(a.name, b.name) || collator.compare(a.key, b.key);
    case 'updated':
      return (a, b) => a.updatedAt.localeCompare(b.updatedAt) || collator.compare(a.key, b.key);
    case 'created':
      return (a, b) => a.createdAt.localeCompare(b.createdAt) || collator.compare(a.key, b.key);
  }
}

/** Flags whose key or name contains every word of the search, case-insensitively. */
export function matchesSearch(flag: ListableFlag, words: readonly string[]): boolean {
  if (words.length === 0) return true;
  const hay = `${flag.key}\u0000${flag.name}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function searchWords(search: string): string[] {
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
}

export function queryFlags<T extends ListableFlag>(flags: readonly T[], query: FlagQuery): T[] {
  const words = searchWords(query.search);
  const status = query.status ?? 'all';
  const out = flags.filter(
    (f) => matchesSearch(f, words) && (status === 'all' || (status === 'enabled') === f.enabled),
  );
  const compare = compareFlags(query.sort);
  out.sort(query.direction === 'asc' ? compare : (a, b) => compare(b, a));
  return out;
}

export interface PageSlice<T> {
  readonly items: T[];
  readonly page: number;
  readonly pageCount: number;
  readonly from: number;
  readonly to: number;
  readonly total: number;
}

/** Page `page` (1-based, clamped into range) of `pageSize` items. */
export function pageOf<T>(items: readonly T[], page: number, pageSize: number): PageSlice<T> {
  const total = items.length;
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const current = Math.min(Math.max(1, Math.floor(page) || 1), pageCount);
  const start = (current - 1) * pageSize;
  const slice = items.slice(start, start + pageSize);
  return {
    items: slice,
    page: current,
    pageCount,
    from: total === 0 ? 0 : start + 1,
    to: start + slice.length,
    total,
  };
}
