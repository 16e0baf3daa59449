/*
 * JSON with map keys in sorted order at every level, as Flipt writes attachments and metadata
 * it imports (Go marshals maps sorted). The same value always gives the same text, so an
 * export does not change when an import reordered nothing but keys.
 */

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(compareKeys)) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/** Code-unit order, so the result does not depend on a locale. */
const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value));
