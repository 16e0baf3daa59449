import type { NamespaceData } from '../../model';

/** The cache's text form of a namespace: plain JSON (every field of NamespaceData is JSON). */
export function encodeNamespaceData(data: NamespaceData): string {
  return JSON.stringify(data);
}

/**
 * Reads a cached namespace back, or undefined when the text is not the expected namespace and
 * version (a corrupt or foreign entry is treated as a miss rather than served).
 */
export function decodeNamespaceData(
  text: string,
  namespaceKey: string,
  version: number,
): NamespaceData | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Partial<NamespaceData>;
  if (
    data.version !== version ||
    data.namespace?.key !== namespaceKey ||
    !Array.isArray(data.flags) ||
    !Array.isArray(data.segments) ||
    !Array.isArray(data.rules) ||
    !Array.isArray(data.rollouts)
  ) {
    return undefined;
  }
  return data as NamespaceData;
}
