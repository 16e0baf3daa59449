import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import ts from 'typescript';
import winston from 'winston';
import {
  createLogger,
  JsonLineEncoder,
  LineWriter,
  redact,
  type LoggingOptions,
} from '../../../src/adapters/telemetry/logging';

/** Collects every write made to the stream (one entry per write call). */
function sink(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _e, done) {
      writes.push(String(chunk));
      done();
    },
  });
  return { stream, writes };
}

/** The json pipeline every line went through before the direct encoder. */
function winstonReference(level: LoggingOptions['level']): {
  log: winston.Logger;
  lines: string[];
} {
  const { stream, writes } = sink();
  const redactFormat = winston.format((info) => {
    for (const key of Object.keys(info)) {
      if (key === 'level' || key === 'timestamp') continue;
      info[key] = redact(info[key], key === 'message' ? '' : key);
    }
    return info;
  });
  const log = winston.createLogger({
    level,
    format: winston.format.combine(
      redactFormat(),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    transports: [new winston.transports.Stream({ stream })],
  });
  return { log, lines: writes };
}

const ISO = /"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/;
const sameTime = (line: string): string => line.replace(ISO, '"timestamp":"T"');

describe('JsonLineEncoder', () => {
  it('writes the access line with sorted keys, ms timestamp and no undefined fields', () => {
    const line = new JsonLineEncoder().encode('info', 'http request', {
      method: 'POST',
      route: '/evaluate/v1/boolean',
      status: 200,
      durationMs: 0.412,
      requestId: '4b3c1f0e-7a4e-4b0e-9c55-0f4b2f6c2a11',
      traceId: undefined,
      aborted: undefined,
    });
    expect(line).toMatch(/\n$/);
    expect(sameTime(line as string)).toBe(
      '{"durationMs":0.412,"level":"info","message":"http request","method":"POST",' +
        '"requestId":"4b3c1f0e-7a4e-4b0e-9c55-0f4b2f6c2a11","route":"/evaluate/v1/boolean",' +
        '"status":200,"timestamp":"T"}\n',
    );
    expect(line).toMatch(ISO);
    expect(new Date(JSON.parse(line as string).timestamp).getTime()).toBeGreaterThan(0);
  });

  it('keeps traceId and aborted when present', () => {
    const line = new JsonLineEncoder().encode('info', 'http request', {
      method: 'GET',
      route: '(unmatched)',
      status: 404,
      durationMs: 12,
      requestId: 'r',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      aborted: true,
    });
    expect(sameTime(line as string)).toBe(
      '{"aborted":true,"durationMs":12,"level":"info","message":"http request","method":"GET",' +
        '"requestId":"r","route":"(unmatched)","status":404,"timestamp":"T",' +
        '"traceId":"0af7651916cd43dd8448eb211c80319c"}\n',
    );
  });

  it('escapes request ids by JSON rules', () => {
    const encoder = new JsonLineEncoder();
    for (const requestId of [
      'a"b',
      'back\\slash',
      '{"x":1}',
      'tab\there',
      'nl\nx',
      '\u0001',
      'é😀',
      '\ud800',
    ]) {
      const line = encoder.encode('info', 'http request', { requestId }) as string;
      expect(JSON.parse(line).requestId).toBe(requestId);
      expect(line.indexOf('\n')).toBe(line.length - 1);
    }
    expect(encoder.encode('info', 'm', { requestId: 'x"\\' })).toContain('"requestId":"x\\"\\\\"');
  });

  it('masks URL passwords and secret-looking keys as the winston pipeline does', () => {
    const line = new JsonLineEncoder().encode('warn', 'to //u:p@h', {
      requestId: 'http://user:pw@host/x',
      token: 12,
      apiKey: '',
    }) as string;
    expect(JSON.parse(line)).toMatchObject({
      message: 'to //u:***@h',
      requestId: 'http://user:***@host/x',
      token: '***',
      apiKey: '',
    });
  });

  it('leaves lines with nested values, bigints or reserved keys to winston', () => {
    const encoder = new JsonLineEncoder();
    expect(encoder.encode('info', 'm', { error: new Error('x') })).toBeUndefined();
    expect(encoder.encode('info', 'm', { nested: { a: 1 } })).toBeUndefined();
    expect(encoder.encode('info', 'm', { list: [1] })).toBeUndefined();
    expect(encoder.encode('info', 'm', { n: 1n })).toBeUndefined();
    expect(encoder.encode('info', 'm', { message: 'more' })).toBeUndefined();
    expect(encoder.encode('info', 'm', { stack: 's' })).toBeUndefined();
    expect(encoder.encode('info', 'm', { level: 'x' })).toBeUndefined();
  });
});

describe('createLogger (json)', () => {
  const cases: [string, Record<string, unknown> | undefined][] = [
    ['http request', { method: 'POST', route: '/r', status: 200, durationMs: 1.5, requestId: 'a' }],
    ['grpc call', { method: '/flipt.Flipt/GetFlag', code: 'OK', durationMs: 0.1, requestId: 'x' }],
    ['plain', undefined],
    ['odd numbers', { a: NaN, b: -0, c: 1e21, d: 1e-7, e: Infinity, f: null, g: false }],
    ['secrets', { password: 'p', authorization: 'Bearer x', cookie: '', secretKey: 0 }],
    ['urls //a:b@c', { url: 'postgres://vexil:hunter2@db:5432/x', other: 'a@b' }],
    ['escapes "\\\n', { 'we"ird': 'q"\\\u0000\u2028', '': 'empty key', z: 'é😀\udc00' }],
    ['nested', { error: new Error('boom //a:b@c'), detail: { token: 't', list: [1, 'x'] } }],
    ['bigint', { n: 12n }],
    ['override', { message: 'appended' }],
  ];

  it.each(cases)('writes exactly what winston wrote: %s', (message, fields) => {
    const reference = winstonReference('debug');
    const { stream, writes } = sink();
    const logger = createLogger({ level: 'debug', encoding: 'json', stream });
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      logger[level](message, fields);
      reference.log[level](message, fields);
    }
    logger.close();
    const ours = writes.join('').split(/(?<=\n)/);
    expect(ours.map(sameTime)).toEqual(reference.lines.map(sameTime));
    reference.log.close();
  });

  it('drops levels below the configured one', () => {
    const { stream, writes } = sink();
    const logger = createLogger({ level: 'warn', encoding: 'json', stream });
    logger.debug('d');
    logger.info('http request', { status: 200 });
    logger.warn('w');
    logger.error('e', { error: new Error('x') });
    logger.close();
    expect(
      writes
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).message),
    ).toEqual(['w', 'e']);
  });

  it('keeps lines in order and writes a burst in one call on the next turn', async () => {
    const { stream, writes } = sink();
    const logger = createLogger({ level: 'info', encoding: 'json', stream });
    logger.info('one', { n: 1 });
    logger.info('two', { nested: { n: 2 } });
    logger.info('three', { n: 3 });
    logger.error('four', { error: new Error('x') });
    logger.info('five');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(
      (writes[0] as string)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).message),
    ).toEqual(['one', 'two', 'three', 'four', 'five']);
    logger.info('six');
    logger.close();
    expect(writes).toHaveLength(2);
    logger.info('after close');
    expect(writes).toHaveLength(3);
  });
});

describe('createLogger (console)', () => {
  it('writes readable lines and leaves unset fields out, as the json lines do', async () => {
    const { stream, writes } = sink();
    const logger = createLogger({ level: 'info', encoding: 'console', stream });
    logger.info('http request', {
      method: 'GET',
      status: 200,
      traceId: undefined,
      aborted: undefined,
    });
    await new Promise((r) => setImmediate(r));
    const line = writes.join('');
    expect(line).toMatch(/^\S+ INFO {2}http request method=GET status=200\n$/);
    expect(line).not.toContain('undefined');
  });
});

describe('LineWriter', () => {
  it('writes at once when the pending text grows past its bound', () => {
    const { stream, writes } = sink();
    const lines = new LineWriter(stream, 10);
    lines.write('12345\n');
    expect(writes).toEqual([]);
    lines.write('67890\n');
    expect(writes).toEqual(['12345\n67890\n']);
    lines.close();
  });

  it('loses no line when the process exits right after logging', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-logging-'));
    try {
      const source = readFileSync(
        join(__dirname, '../../../src/adapters/telemetry/logging.ts'),
        'utf8',
      );
      const js = ts.transpileModule(source, {
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          esModuleInterop: true,
        },
      }).outputText;
      writeFileSync(join(dir, 'logging.js'), js);
      const script =
        `const { createLogger } = require(${JSON.stringify(join(dir, 'logging.js'))});` +
        `const log = createLogger({ level: 'info', encoding: 'json' });` +
        `for (let i = 0; i < 2000; i++) log.info('http request', { i });` +
        `log.warn('last', { nested: { a: 1 } });` +
        `process.exit(0);`;
      const run = spawnSync(process.execPath, ['-e', script], {
        env: { ...process.env, NODE_PATH: join(__dirname, '../../../node_modules') },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(run.status).toBe(0);
      const lines = run.stdout.split('\n').filter(Boolean);
      expect(lines).toHaveLength(2001);
      expect(JSON.parse(lines[1999] as string).i).toBe(1999);
      expect(JSON.parse(lines[2000] as string).message).toBe('last');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
