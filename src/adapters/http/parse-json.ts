import { invalidArgument } from './http-error';

/*
 * grpc-gateway decodes bodies with Go's json.Decoder: one JSON value is read and whatever
 * follows it is ignored, an empty body means "no fields", and syntax errors carry Go's
 * texts ("unexpected EOF", "invalid character 'x' looking for beginning of value"). This
 * scanner reproduces that; JSON.parse then does the actual parsing of the accepted prefix.
 * It is iterative so that deeply nested input cannot exhaust the stack.
 */

const WS = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /[0-9a-fA-F]/;
const DIGIT = /[0-9]/;

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  return `'${JSON.stringify(c).slice(1, -1)}'`;
}

class JsonSyntaxError extends Error {}

const unexpectedEof = (): JsonSyntaxError => new JsonSyntaxError('unexpected EOF');
const invalidChar = (c: string, context: string): JsonSyntaxError =>
  new JsonSyntaxError(`invalid character ${quoteChar(c)} ${context}`);

/** Returns the end offset of the first JSON value of `text`, which must not be blank. */
export function scanJsonValue(text: string): number {
  const n = text.length;
  let pos = 0;
  const stack: Array<'object' | 'array'> = [];
  let state: 'value' | 'key' | 'after' = 'value';

  const skipWs = (): void => {
    while (pos < n && WS.has(text[pos] as string)) pos++;
  };
  const scanString = (): void => {
    pos++; // opening quote
    for (;;) {
      if (pos >= n) throw unexpectedEof();
      const c = text[pos] as string;
      if (c === '"') {
        pos++;
        return;
      }
      if (c === '\\') {
        pos++;
        if (pos >= n) throw unexpectedEof();
        const e = text[pos] as string;
        if (e === 'u') {
          for (let i = 1; i <= 4; i++) {
            if (pos + i >= n) throw unexpectedEof();
            const h = text[pos + i] as string;
            if (!HEX.test(h)) throw invalidChar(h, 'in \\u hexadecimal character escape');
          }
          pos += 5;
          continue;
        }
        if (!ESCAPES.has(e)) throw invalidChar(e, 'in string escape code');
        pos++;
        continue;
      }
      if (c < ' ') throw invalidChar(c, 'in string literal');
      pos++;
    }
  };
  const digits = (context: string): void => {
    if (pos >= n) throw unexpectedEof();
    if (!DIGIT.test(text[pos] as string)) throw invalidChar(text[pos] as string, context);
    while (pos < n && DIGIT.test(text[pos] as string)) pos++;
  };
  const scanNumber = (): void => {
    if (text[pos] === '-') {
      pos++;
      if (pos >= n) throw unexpectedEof();
      if (!DIGIT.test(text[pos] as string))
        throw invalidChar(text[pos] as string, 'in numeric literal');
    }
    if (text[pos] === '0') pos++;
    else while (pos < n && DIGIT.test(text[pos] as string)) pos++;
    if (text[pos] === '.') {
      pos++;
      digits('after decimal point in numeric literal');
    }
    if (text[pos] === 'e' || text[pos] === 'E') {
      pos++;
      if (text[pos] === '+' || text[pos] === '-') pos++;
      digits('in exponent of numeric literal');
    }
  };
  const scanLiteral = (word: string): void => {
    for (let i = 1; i < word.length; i++) {
      if (pos + i >= n) throw unexpectedEof();
      const c = text[pos + i] as string;
      if (c !== word[i]) throw invalidChar(c, `in literal ${word} (expecting '${word[i]}')`);
    }
    pos += word.length;
  };

  for (;;) {
    if (state === 'after' && stack.length === 0) return pos;
    skipWs();
    if (pos >= n) throw unexpectedEof();
    const c = text[pos] as string;
    if (state === 'value') {
      if (c === '{' || c === '[') {
        pos++;
        skipWs();
        if (pos >= n) throw unexpectedEof();
        if (text[pos] === (c === '{' ? '}' : ']')) {
          pos++;
          state = 'after';
        } else {
          stack.push(c === '{' ? 'object' : 'array');
          state = c === '{' ? 'key' : 'value';
        }
      } else if (c === '"') {
        scanString();
        state = 'after';
      } else if (c === '-' || DIGIT.test(c)) {
        scanNumber();
        state = 'after';
      } else if (c === 't' || c === 'f' || c === 'n') {
        scanLiteral(c === 't' ? 'true' : c === 'f' ? 'false' : 'null');
        state = 'after';
      } else {
        throw invalidChar(c, 'looking for beginning of value');
      }
    } else if (state === 'key') {
      if (c !== '"') throw invalidChar(c, 'looking for beginning of object key string');
      scanString();
      skipWs();
      if (pos >= n) throw unexpectedEof();
      if (text[pos] !== ':') throw invalidChar(text[pos] as string, 'after object key');
      pos++;
      state = 'value';
    } else {
      const top = stack[stack.length - 1];
      if (c === ',') {
        pos++;
        state = top === 'object' ? 'key' : 'value';
      } else if ((top === 'object' && c === '}') || (top === 'array' && c === ']')) {
        pos++;
        stack.pop();
      } else {
        throw invalidChar(
          c,
          top === 'object' ? 'after object key:value pair' : 'after array element',
        );
      }
    }
  }
}

/**
 * Parses a request body the way grpc-gateway does, whatever its Content-Type (the Flipt
 * SDKs send text/plain). A blank body is `undefined`; syntax errors are 400 with Go's text.
 */
export function parseJsonBody(body: Buffer | string): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  // A body that is exactly one JSON value (nearly every request) needs no scanning: its
  // accepted prefix is the whole text. Anything JSON.parse refuses (blank, trailing data,
  // syntax errors) takes the exact path below.
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // fall through
  }
  if (/^[ \t\n\r]*$/.test(text)) return undefined;
  let end: number;
  try {
    end = scanJsonValue(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw invalidArgument(err.message);
    throw err;
  }
  return JSON.parse(text.slice(0, end)) as unknown;
}
