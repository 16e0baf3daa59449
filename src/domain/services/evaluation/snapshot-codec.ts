import type { NamespaceData } from '../../model';

/*
 * The cache's text form of a namespace. A large namespace is tens of megabytes of JSON, which
 * JSON.stringify or JSON.parse would handle in one go, holding the event loop for hundreds of
 * milliseconds and the memory for several copies of it. So the text is lines: a header line
 * with the namespace and version, then the flags, segments, rules and rollouts in lines of
 * about LINE_CHARS characters, each line `<section letter><JSON array>`. A cache can store the
 * lines apart and write or read them a few at a time. JSON text never holds a raw line
 * break, so joined with '\n' they split back safely.
 *
 * Lines are kept small because of where V8 puts them: a string under 128 KB is made in the
 * young generation and freed by the next scavenge once sent, while a larger one goes to the
 * large-object space and stays resident until a full collection. With lines of 500 items
 * (about 360 KB for rules), storing a 10,000-flag namespace left 40-50 MB of such strings.
 */

/** Characters of JSON per line at most, unless a single item is longer. */
export const LINE_CHARS = 16 * 1024;
const SECTIONS = [
  ['f', 'flags'],
  ['s', 'segments'],
  ['r', 'rules'],
  ['o', 'rollouts'],
] as const;

type SectionName = (typeof SECTIONS)[number][1];

/** The lines of a namespace, made one at a time as they are asked for. */
export function* namespaceLines(data: NamespaceData): Generator<string> {
  yield JSON.stringify({ namespace: data.namespace, version: data.version });
  for (const [letter, name] of SECTIONS) {
    const items: readonly unknown[] = data[name];
    let parts: string[] = [];
    let chars = 0;
    for (const item of items) {
      const text = JSON.stringify(item);
      if (parts.length > 0 && chars + text.length > LINE_CHARS) {
        yield `${letter}[${parts.join(',')}]`;
        parts = [];
        chars = 0;
      }
      parts.push(text);
      chars += text.length + 1;
    }
    if (parts.length > 0) yield `${letter}[${parts.join(',')}]`;
  }
}

/**
 * Reads lines back, one at a time: `push` each in order, then `result` is the namespace, or
 * undefined when the lines are not the expected namespace and version (a corrupt or foreign
 * entry is treated as a miss rather than served).
 */
export class NamespaceLinesReader {
  private header: Pick<NamespaceData, 'namespace' | 'version'> | undefined;
  private broken = false;
  private readonly sections: Record<SectionName, unknown[]> = {
    flags: [],
    segments: [],
    rules: [],
    rollouts: [],
  };

  constructor(
    private readonly namespaceKey: string,
    private readonly version: number,
  ) {}

  /** False once the lines cannot be this namespace (the rest need not be read). */
  push(line: string): boolean {
    if (this.broken) return false;
    if (this.header === undefined) {
      const head = parse(line) as Partial<NamespaceData> | undefined;
      if (
        typeof head !== 'object' ||
        head === null ||
        head.version !== this.version ||
        head.namespace?.key !== this.namespaceKey
      ) {
        this.broken = true;
        return false;
      }
      this.header = { namespace: head.namespace, version: this.version };
      return true;
    }
    const name = SECTIONS.find(([letter]) => line.startsWith(letter))?.[1];
    const items = name === undefined ? undefined : parse(line.slice(1));
    if (name === undefined || !Array.isArray(items)) {
      this.broken = true;
      return false;
    }
    const into = this.sections[name];
    for (const item of items as unknown[]) into.push(item);
    return true;
  }

  result(): NamespaceData | undefined {
    if (this.broken || this.header === undefined) return undefined;
    return { ...this.header, ...this.sections } as NamespaceData;
  }
}

/** The whole text at once (lines joined with '\n'), for tests and small namespaces. */
export function encodeNamespaceData(data: NamespaceData): string {
  return [...namespaceLines(data)].join('\n');
}

export function decodeNamespaceData(
  text: string,
  namespaceKey: string,
  version: number,
): NamespaceData | undefined {
  const reader = new NamespaceLinesReader(namespaceKey, version);
  for (const line of text.split('\n')) if (!reader.push(line)) return undefined;
  return reader.result();
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
