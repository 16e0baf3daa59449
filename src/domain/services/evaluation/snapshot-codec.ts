import type { NamespaceData } from '../../model';

/*
 * The cache's text form of a namespace. A large namespace is tens of megabytes of JSON, which
 * JSON.stringify or JSON.parse would handle in one go, holding the event loop for hundreds of
 * milliseconds. So the text is lines: a header line with the namespace and version, then the
 * flags, segments, rules and rollouts in lines of at most ITEMS_PER_LINE items, each line
 * `<section letter><JSON array>`. JSON text never holds a raw line break, so lines split
 * safely, and encoding or decoding gives way (`pause`) between lines.
 */

const ITEMS_PER_LINE = 500;
const SECTIONS = [
  ['f', 'flags'],
  ['s', 'segments'],
  ['r', 'rules'],
  ['o', 'rollouts'],
] as const;

type SectionName = (typeof SECTIONS)[number][1];

const noPause = (): Promise<void> => Promise.resolve();

export async function encodeNamespaceData(
  data: NamespaceData,
  pause: () => Promise<void> = noPause,
): Promise<string> {
  const lines = [JSON.stringify({ namespace: data.namespace, version: data.version })];
  for (const [letter, name] of SECTIONS) {
    const items: readonly unknown[] = data[name];
    for (let i = 0; i < items.length; i += ITEMS_PER_LINE) {
      lines.push(letter + JSON.stringify(items.slice(i, i + ITEMS_PER_LINE)));
      await pause();
    }
  }
  return lines.join('\n');
}

/**
 * Reads a cached namespace back, or undefined when the text is not the expected namespace and
 * version (a corrupt or foreign entry is treated as a miss rather than served).
 */
export async function decodeNamespaceData(
  text: string,
  namespaceKey: string,
  version: number,
  pause: () => Promise<void> = noPause,
): Promise<NamespaceData | undefined> {
  const lines = text.split('\n');
  const header = parse(lines[0] ?? '');
  if (typeof header !== 'object' || header === null) return undefined;
  const head = header as Partial<NamespaceData>;
  if (head.version !== version || head.namespace?.key !== namespaceKey) return undefined;
  const sections: Record<SectionName, unknown[]> = {
    flags: [],
    segments: [],
    rules: [],
    rollouts: [],
  };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const name = SECTIONS.find(([letter]) => line.startsWith(letter))?.[1];
    const items = name === undefined ? undefined : parse(line.slice(1));
    if (name === undefined || !Array.isArray(items)) return undefined;
    const into = sections[name];
    for (const item of items as unknown[]) into.push(item);
    await pause();
  }
  return { namespace: head.namespace, version, ...sections } as NamespaceData;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
