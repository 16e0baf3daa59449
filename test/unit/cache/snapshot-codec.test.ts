import type { Flag, NamespaceData } from '../../../src/domain/model';
import {
  decodeNamespaceData,
  encodeNamespaceData,
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
  it('reads back what it wrote, in lines that give way between them', async () => {
    const data = namespace(1201);
    let pauses = 0;
    const pause = (): Promise<void> => {
      pauses += 1;
      return Promise.resolve();
    };
    const text = await encodeNamespaceData(data, pause);
    // A header and three lines of flags: text in a name does not break a line.
    expect(text.split('\n')).toHaveLength(4);
    expect(pauses).toBe(3);
    await expect(decodeNamespaceData(text, 'ns', 7, pause)).resolves.toEqual(data);
  });

  it('treats another namespace, another version or a damaged line as a miss', async () => {
    const text = await encodeNamespaceData(namespace(3));
    await expect(decodeNamespaceData(text, 'other', 7)).resolves.toBeUndefined();
    await expect(decodeNamespaceData(text, 'ns', 8)).resolves.toBeUndefined();
    await expect(decodeNamespaceData(`${text}\nf[{`, 'ns', 7)).resolves.toBeUndefined();
    await expect(decodeNamespaceData(`${text}\nx[]`, 'ns', 7)).resolves.toBeUndefined();
    await expect(decodeNamespaceData('not json', 'ns', 7)).resolves.toBeUndefined();
  });
});
