import { RandomIdGenerator } from '../../../src/adapters/system/ids';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('RandomIdGenerator', () => {
  it('writes version 4 UUIDs with the RFC 4122 variant, across several refills of its pool', () => {
    const ids = new RandomIdGenerator();
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = ids.uuid();
      expect(id).toMatch(UUID_V4);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });

  it('uses every hex digit in every free position (the bytes really are random)', () => {
    const ids = new RandomIdGenerator();
    const digitsAt = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 3000; i++) {
      const id = ids.uuid();
      for (let p = 0; p < 36; p++) digitsAt[p]?.add(id[p] as string);
    }
    const free = [...Array(36).keys()].filter((p) => ![8, 13, 14, 18, 19, 23].includes(p));
    for (const p of free) expect(digitsAt[p]?.size).toBe(16);
    expect([...(digitsAt[14] ?? [])]).toEqual(['4']);
    expect([...(digitsAt[19] ?? [])].sort()).toEqual(['8', '9', 'a', 'b']);
  });

  it('gives independent generators independent ids', () => {
    const a = new RandomIdGenerator();
    const b = new RandomIdGenerator();
    expect(a.uuid()).not.toBe(b.uuid());
  });
});
