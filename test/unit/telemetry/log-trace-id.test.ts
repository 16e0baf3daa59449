import { PassThrough } from 'node:stream';
import { createLogger } from '../../../src/adapters/telemetry/logging';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('log lines inside a traced request', () => {
  it.each(['json', 'console'] as const)(
    'carry the active trace id, and only then (%s encoding)',
    async (encoding) => {
      let active: string | undefined;
      const stream = new PassThrough();
      let text = '';
      stream.on('data', (d: Buffer) => (text += d.toString()));
      const logger = createLogger({ level: 'info', encoding, stream, traceId: () => active });
      active = TRACE_ID;
      logger.error('storage failed', { requestId: 'r1' });
      logger.info('http request', { requestId: 'r2', traceId: 'given-trace' });
      active = undefined;
      logger.warn('outside any request');
      logger.close();
      await new Promise((r) => setTimeout(r, 50));
      const [inside, given, outside] = text.trim().split('\n');
      expect(inside).toContain(TRACE_ID);
      expect(inside).toContain('r1');
      expect(given).toContain('given-trace');
      expect(given).not.toContain(TRACE_ID);
      expect(outside).not.toContain('traceId');
    },
  );
});
