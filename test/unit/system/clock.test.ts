import { formatMicros, SystemClock } from '../../../src/adapters/system/clock';

describe('SystemClock', () => {
  it('gives the same text as formatMicros, across second boundaries', () => {
    const clock = new SystemClock();
    const origin = performance.timeOrigin;
    const now = jest.spyOn(performance, 'now');
    try {
      // Instants chosen around second and day boundaries, with every fraction width.
      const instants = [
        1_700_000_000_000.0, 1_700_000_000_000.001, 1_700_000_000_000.01, 1_700_000_000_000.5,
        1_700_000_000_999.999, 1_700_000_001_000, 1_700_000_001_123.456, 1_735_689_599_999.999,
        1_735_689_600_000.001,
      ];
      for (const ms of instants) {
        now.mockReturnValue(ms - origin);
        const text = clock.now();
        expect(text).toBe(formatMicros(Math.floor((origin + (ms - origin)) * 1000)));
        expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      }
    } finally {
      now.mockRestore();
    }
  });

  it('never goes backwards', () => {
    const clock = new SystemClock();
    const now = jest.spyOn(performance, 'now');
    try {
      now.mockReturnValue(10_000);
      const a = clock.now();
      now.mockReturnValue(9_000);
      const b = clock.now();
      expect(b > a).toBe(true);
    } finally {
      now.mockRestore();
    }
  });
});
