import type { Flag, NamespaceData } from '../../../src/domain/model';
import {
  decodeNamespaceData,
  encodeNamespaceData,
  LINE_CHARS,
  NamespaceLinesReader,
  namespaceLines,
} from '../../../src/domain/services/evaluation/snapshot-codec';

const TS = '2024-05-01T10:00:00.000000Z';

function namespace(flags: number): NamespaceData {
  const flag = (i: number): Flag => ({
    namespaceKey: 'ns',
    key: `f${i}`,
    name: `line\nbreak ${i}`,
    description: '',
    enabled: i % 2 === 0,
    type: 'BOOLEAN_FLAG_TYPE',
    createdAt: TS,
    updatedAt: TS,
    variants: [],
  });
  return {
    namespace: {
      key: 'ns',
      name: 'ns',
      description: '',
      protected: false,
      createdAt: TS,
      updatedAt: TS,
    },
    version: 7,
    flags: Array.from({ length: flags }, (_, i) => flag(i)),
    segments: [],
    rules: [],
    rollouts: [],
  };
}

describe('snapshot codec', () => {
  it('reads back what it wrote, in lines of at most LINE_CHARS characters of JSON', () => {
    const data = namespace(1201);
    const lines = [...namespaceLines(data)];
    const flagChars = JSON.stringify(data.flags).length;
    // A header, then the flags in as many lines as their JSON needs: a line break in a name
    // does not break a line.
    expect(lines.length).toBeGreaterThanOrEqual(1 + Math.ceil((flagChars - 2) / LINE_CHARS));
    expect(lines.length).toBeLessThanOrEqual(2 + Math.ceil((2 * flagChars) / LINE_CHARS));
    expect(lines.slice(1).every((l) => l[0] === 'f')).toBe(true);
    // `f[` and `]` around at most LINE_CHARS characters of items and commas.
    expect(Math.max(...lines.slice(1).map((l) => l.length))).toBeLessThanOrEqual(LINE_CHARS + 2);
    const reader = new NamespaceLinesReader('ns', 7);
    for (const line of lines) expect(reader.push(line)).toBe(true);
    expect(reader.result()).toEqual(data);
    expect(decodeNamespaceData(encodeNamespaceData(data), 'ns', 7)).toEqual(data);
  });

  it('gives an item longer than a line a line of its own, keeping the order of every section', () => {
    const data = namespace(5);
    const big = { ...data.flags[2]!, description: 'd'.repeat(LINE_CHARS * 2) };
    const withBig: NamespaceData = {
      ...data,
      flags: data.flags.map((f, i) => (i === 2 ? big : f)),
      segments: [
        {
          namespaceKey: 'ns',
          key: 's1',
          name: 's1',
          description: '',
          matchType: 'ALL_MATCH_TYPE',
          createdAt: TS,
          updatedAt: TS,
          constraints: [],
        },
      ],
    };
    const lines = [...namespaceLines(withBig)];
    // header; flags 0-1; the long flag alone; flags 3-4; the segment.
    expect(lines.map((l) => l[0])).toEqual(['{', 'f', 'f', 'f', 's']);
    expect(JSON.parse(lines[2]!.slice(1))).toEqual([big]);
    expect(decodeNamespaceData(lines.join('\n'), 'ns', 7)).toEqual(withBig);
  });

  it('treats another namespace, another version or a damaged line as a miss', () => {
    const text = encodeNamespaceData(namespace(3));
    expect(decodeNamespaceData(text, 'other', 7)).toBeUndefined();
    expect(decodeNamespaceData(text, 'ns', 8)).toBeUndefined();
    expect(decodeNamespaceData(`${text}\nf[{`, 'ns', 7)).toBeUndefined();
    expect(decodeNamespaceData(`${text}\nx[]`, 'ns', 7)).toBeUndefined();
    expect(decodeNamespaceData('not json', 'ns', 7)).toBeUndefined();
  });
});
