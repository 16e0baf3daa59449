import { Writable } from 'node:stream';
import winston from 'winston';
import type { Logger } from '../../ports';

export interface LoggingOptions {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  /** json: one JSON object per line; console: readable lines for a terminal. */
  readonly encoding: 'json' | 'console';
  /** Where lines go; stdout by default. */
  readonly stream?: NodeJS.WritableStream;
  /** The active trace's id, if any (tracing's currentTraceId): added to every line. */
  readonly traceId?: () => string | undefined;
}

const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|api[-_]?key/i;
const URL_PASSWORD = /(\/\/[^:/@\s]*:)([^@\s]*)@/g;

/** Masks secrets: values of secret-looking keys and passwords inside URLs. */
export function redact(value: unknown, key = ''): unknown {
  if (key !== '' && SECRET_KEY.test(key) && value !== '' && value !== undefined) return '***';
  if (typeof value === 'string') return value.replace(URL_PASSWORD, '$1***@');
  if (Array.isArray(value)) return value.map((v) => redact(v));
  if (value instanceof Error) return { message: redact(value.message), stack: value.stack };
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redact(v, k);
    return out;
  }
  return value;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'timestamp') continue;
    info[key] = redact(info[key], key === 'message' ? '' : key);
  }
  return info;
});

/**
 * Lines gathered during one turn of the event loop and written to the stream in one call
 * (one system call for all the access lines of a burst of requests rather than one each).
 * Every line of a logger goes through its writer, so lines keep their order. What is still
 * pending is written when the buffer grows past `maxPending`, on flush(), and when the
 * process exits (stdout and stderr writes are synchronous on Linux pipes and files, so an
 * exit handler can still write them).
 */
export class LineWriter {
  private pending = '';
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly maxPending = 64 * 1024,
  ) {
    openWriters.add(this);
    watchExit();
  }

  write(text: string): void {
    if (this.closed) {
      this.stream.write(text);
      return;
    }
    this.pending += text;
    if (this.pending.length >= this.maxPending) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushLater);
    }
  }

  flush(): void {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.stream.write(text);
  }

  /** Writes what is pending; later lines are written at once. */
  close(): void {
    this.flush();
    this.closed = true;
    openWriters.delete(this);
  }

  private readonly flushLater = (): void => {
    this.scheduled = false;
    this.flush();
  };
}

const openWriters = new Set<LineWriter>();
let exitWatched = false;
function watchExit(): void {
  if (exitWatched) return;
  exitWatched = true;
  process.on('exit', () => {
    for (const writer of openWriters) writer.flush();
  });
}

/** Hands the lines winston formats (those the direct encoder leaves to it) to a LineWriter. */
function lineWriterStream(lines: LineWriter): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      lines.write(typeof chunk === 'string' ? chunk : chunk.toString());
      done();
    },
  });
}

type LevelName = LoggingOptions['level'];

/** Where a key of the line comes from: the call's fields, or what the logger adds. */
type Slot =
  | {
      readonly kind: 'field';
      readonly key: string;
      readonly prefix: string;
      readonly secret: boolean;
    }
  | { readonly kind: 'level' | 'message' | 'timestamp'; readonly prefix: string };

interface Shape {
  readonly keys: readonly string[];
  readonly slots: readonly Slot[];
}

/** Keys that winston treats specially when they come with the fields. */
const RESERVED = new Set(['level', 'message', 'timestamp', 'stack']);
const MAX_SHAPES = 256;

/**
 * Encodes a line with flat fields (strings, finite or not numbers, booleans, null, undefined)
 * directly, as the exact text winston's json pipeline (redaction, timestamp, safe-stable-
 * stringify) gives: keys in sorted order, undefined fields left out, secret-looking keys
 * masked, URL passwords in strings masked. That pipeline costs about 20 µs a line; this
 * costs about one. Lines with anything else (objects, errors, bigints, reserved keys) are
 * left to winston (undefined is returned).
 */
export class JsonLineEncoder {
  private readonly shapes = new Map<string, Shape>();
  /** The shape of the previous line: access lines follow one another with the same keys. */
  private lastShape: Shape | undefined;
  private lastMs = -1;
  private lastIso = '';

  encode(level: LevelName, message: string, fields?: Record<string, unknown>): string | undefined {
    const keys = fields === undefined ? [] : Object.keys(fields);
    const shape = this.shapeOf(keys);
    if (shape === undefined) return undefined;
    let out = '{';
    for (const slot of shape.slots) {
      let json: string | undefined;
      switch (slot.kind) {
        case 'field':
          json = fieldJson((fields as Record<string, unknown>)[slot.key], slot.secret);
          if (json === undefined) continue;
          if (json === NOT_FLAT) return undefined;
          break;
        case 'level':
          json = LEVEL_JSON[level];
          break;
        case 'message':
          json = JSON.stringify(message.includes('@') ? redactText(message) : message);
          break;
        case 'timestamp':
          json = this.timestamp();
          break;
      }
      out += out.length === 1 ? slot.prefix + json : `,${slot.prefix}${json}`;
    }
    return `${out}}\n`;
  }

  /** winston's timestamp format (toISOString), formatted once per millisecond. */
  private timestamp(): string {
    const ms = Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = `"${new Date(ms).toISOString()}"`;
    }
    return this.lastIso;
  }

  private shapeOf(keys: readonly string[]): Shape | undefined {
    const last = this.lastShape;
    if (last !== undefined && sameKeys(last.keys, keys)) return last;
    const id = keys.join('\n');
    const known = this.shapes.get(id);
    if (known !== undefined && sameKeys(known.keys, keys)) return (this.lastShape = known);
    for (const key of keys) if (RESERVED.has(key)) return undefined;
    const all = [...keys, 'level', 'message', 'timestamp'].sort();
    const slots = all.map((key): Slot => {
      const prefix = `${JSON.stringify(key)}:`;
      if (key === 'level' || key === 'message' || key === 'timestamp') return { kind: key, prefix };
      return { kind: 'field', key, prefix, secret: SECRET_KEY.test(key) };
    });
    const shape = { keys: [...keys], slots };
    if (this.shapes.size < MAX_SHAPES) this.shapes.set(id, shape);
    return (this.lastShape = shape);
  }
}

const NOT_FLAT = '\u0000';
const LEVEL_JSON: Record<LevelName, string> = {
  debug: '"debug"',
  info: '"info"',
  warn: '"warn"',
  error: '"error"',
};

const redactText = (text: string): string => text.replace(URL_PASSWORD, '$1***@');

/** A field's JSON text, undefined to leave it out, NOT_FLAT for a value left to winston. */
function fieldJson(value: unknown, secret: boolean): string | undefined {
  if (value === undefined) return undefined;
  if (secret && value !== '') return '"***"';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.includes('@') ? redactText(value) : value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return value === null ? 'null' : NOT_FLAT;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const RANK: Record<LevelName, number> = { error: 0, warn: 1, info: 2, debug: 5 };

export function createLogger(options: LoggingOptions): Logger & { close(): void } {
  return options.encoding === 'json' ? createJsonLogger(options) : createConsoleLogger(options);
}

/**
 * JSON lines: flat lines (every access line, most others) are encoded directly, the rest by
 * winston; both go through one LineWriter, so they stay in order and are written in batches.
 */
function createJsonLogger(options: LoggingOptions): Logger & { close(): void } {
  const lines = new LineWriter(options.stream ?? process.stdout);
  const w = winston.createLogger({
    level: options.level,
    format: winston.format.combine(
      redactFormat(),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    transports: [new winston.transports.Stream({ stream: lineWriterStream(lines) })],
  });
  const encoder = new JsonLineEncoder();
  const withTraceId = traceIdAdder(options.traceId);
  const at = (level: LevelName) => {
    if (RANK[level] > RANK[options.level]) return () => undefined;
    return (message: string, given?: Record<string, unknown>): void => {
      const fields = withTraceId(given);
      const line = encoder.encode(level, message, fields);
      if (line !== undefined) lines.write(line);
      else w.log(level, message, fields);
    };
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    close: () => {
      lines.close();
      w.close();
    },
  };
}

/**
 * Lines written inside a traced request carry its trace id (when not already given);
 * `current` says which trace is active (tracing's currentTraceId), if any.
 */
function traceIdAdder(current: (() => string | undefined) | undefined) {
  if (current === undefined) return (fields: Record<string, unknown> | undefined) => fields;
  return (fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined => {
    if (fields !== undefined && fields['traceId'] !== undefined) return fields;
    const traceId = current();
    return traceId === undefined ? fields : { ...fields, traceId };
  };
}

function createConsoleLogger(options: LoggingOptions): Logger & { close(): void } {
  const format = winston.format.combine(
    redactFormat(),
    winston.format.timestamp(),
    winston.format.printf(({ timestamp, level, message, ...rest }) => {
      // Unset fields are left out, as the JSON encoding leaves them out.
      const fields = Object.entries(rest)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      return `${String(timestamp)} ${level.toUpperCase().padEnd(5)} ${String(message)}${fields ? ` ${fields}` : ''}`;
    }),
  );
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console();
  const w = winston.createLogger({ level: options.level, format, transports: [transport] });
  const withTraceId = traceIdAdder(options.traceId);
  // winston runs the whole format pipeline before its transport drops a line below the
  // level; checking first makes a disabled level cost nothing.
  const debug = w.isLevelEnabled('debug');
  const info = w.isLevelEnabled('info');
  const warn = w.isLevelEnabled('warn');
  return {
    debug: (m, f) => void (debug && w.debug(m, withTraceId(f))),
    info: (m, f) => void (info && w.info(m, withTraceId(f))),
    warn: (m, f) => void (warn && w.warn(m, withTraceId(f))),
    error: (m, f) => void w.error(m, withTraceId(f)),
    close: () => w.close(),
  };
}
