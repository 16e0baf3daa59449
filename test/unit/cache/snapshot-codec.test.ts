import type { Flag, NamespaceData } from '../../../src/domain/model';
import {
  decodeNamespaceData,
  encodeNamespaceData,
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
  it('reads back what it wrote, in lines of at most 500 items', () => {
    const data = namespace(1201);
    const lines = [...namespaceLines(data)];
    // A header and three lines of flags: a line break in a name does not break a line.
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).map((l) => l[0])).toEqual(['f', 'f', 'f']);
    const reader = new NamespaceLinesReader('ns', 7);
    for (const line of lines) expect(reader.push(line)).toBe(true);
    expect(reader.result()).toEqual(data);
    expect(decodeNamespaceData(encodeNamespaceData(data), 'ns', 7)).toEqual(data);
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
