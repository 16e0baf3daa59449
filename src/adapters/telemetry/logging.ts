import winston from 'winston';
import type { Logger } from '../../ports';

export interface LoggingOptions {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  /** json: one JSON object per line; console: readable lines for a terminal. */
  readonly encoding: 'json' | 'console';
  /** Where lines go; stdout by default. */
  readonly stream?: NodeJS.WritableStream;
}

const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|api[-_]?key/i;

/** Masks secrets: values of secret-looking keys and passwords inside URLs. */
export function redact(value: unknown, key = ''): unknown {
  if (key !== '' && SECRET_KEY.test(key) && value !== '' && value !== undefined) return '***';
  if (typeof value === 'string') return value.replace(/(\/\/[^:/@\s]*:)([^@\s]*)@/g, '$1***@');
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

export function createLogger(options: LoggingOptions): Logger & { close(): void } {
  const format =
    options.encoding === 'json'
      ? winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          redactFormat(),
          winston.format.timestamp(),
          winston.format.printf(({ timestamp, level, message, ...rest }) => {
            const fields = Object.entries(rest)
              .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
              .join(' ');
            return `${String(timestamp)} ${level.toUpperCase().padEnd(5)} ${String(message)}${fields ? ` ${fields}` : ''}`;
          }),
        );
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console();
  const w = winston.createLogger({ level: options.level, format, transports: [transport] });
  // winston runs the whole format pipeline before its transport drops a line below the
  // level; checking first makes a disabled level cost nothing.
  const debug = w.isLevelEnabled('debug');
  const info = w.isLevelEnabled('info');
  const warn = w.isLevelEnabled('warn');
  return {
    debug: (m, f) => void (debug && w.debug(m, f)),
    info: (m, f) => void (info && w.info(m, f)),
    warn: (m, f) => void (warn && w.warn(m, f)),
    error: (m, f) => void w.error(m, f),
    close: () => w.close(),
  };
}
