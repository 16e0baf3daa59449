/*
 * A strict JSON scanner with Go's encoding/json rules (json.Valid, json.Compact). Flipt
 * stores attachments through json.Compact, which drops insignificant whitespace but keeps
 * every token as written: `1.0`, `1e2` and `"\u00e9"` survive, where JSON.stringify(JSON.parse())
 * would rewrite them. The scanner is iterative so deep nesting cannot overflow the stack.
 */

/** Go's scanner refuses documents nested deeper than this. */
const MAX_DEPTH = 10000;

export type JsonNode =
  | { readonly kind: 'object'; readonly entries: ReadonlyArray<readonly [string, JsonNode]> }
  | { readonly kind: 'array'; readonly items: readonly JsonNode[] }
  | { readonly kind: 'string'; readonly value: string }
  /** `raw` is the number exactly as written. */
  | { readonly kind: 'number'; readonly raw: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' };

type Token =
  | { readonly t: '{' | '}' | '[' | ']' | ':' | ',' }
  | { readonly t: 'string'; readonly raw: string; readonly value: string }
  | { readonly t: 'number'; readonly raw: string }
  | { readonly t: 'literal'; readonly raw: 'true' | 'false' | 'null' };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

const isSpace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r';

function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (isSpace(c)) {
      i++;
    } else if (c === '{' || c === '}' || c === '[' || c === ']' || c === ':' || c === ',') {
      tokens.push({ t: c });
      i++;
    } else if (c === '"') {
      const start = i++;
      for (;;) {
        const d = text.charCodeAt(i);
        if (i >= text.length || d < 0x20) return undefined;
        if (d === 0x22) break;
        if (d === 0x5c) {
          STRING_ESCAPE.lastIndex = i;
          if (!STRING_ESCAPE.test(text)) return undefined;
          i = STRING_ESCAPE.lastIndex;
        } else {
          i++;
        }
      }
      i++;
      const raw = text.slice(start, i);
      tokens.push({ t: 'string', raw, value: JSON.parse(raw) as string });
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m === null) return undefined;
      tokens.push({ t: 'number', raw: m[0] });
      i += m[0].length;
    } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
      tokens.push({ t: 'literal', raw: text.slice(i, i + 4) as 'true' | 'null' });
      i += 4;
    } else if (text.startsWith('false', i)) {
      tokens.push({ t: 'literal', raw: 'false' });
      i += 5;
    } else {
      return undefined;
    }
  }
  return tokens;
}

type Frame =
  | { kind: 'object'; entries: Array<readonly [string, JsonNode]>; key?: string; state: ObjState }
  | { kind: 'array'; items: JsonNode[]; state: ArrState };
// Object: expecting first key or '}', a key, ':', a value, ',' or '}'.
type ObjState = 'keyOrEnd' | 'key' | 'colon' | 'value' | 'commaOrEnd';
type ArrState = 'valueOrEnd' | 'value' | 'commaOrEnd';

/** Parses a whole document; undefined when it is not valid JSON for Go. */
function parseTokens(tokens: readonly Token[]): JsonNode | undefined {
  const stack: Frame[] = [];
  let root: JsonNode | undefined;

  // Places a finished value into the enclosing container (or as the root).
  const emit = (node: JsonNode): boolean => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      if (root !== undefined) return false;
      root = node;
      return true;
    }
    if (top.kind === 'object') {
      if (top.state !== 'value' || top.key === undefined) return false;
      top.entries.push([top.key, node]);
      top.key = undefined;
      top.state = 'commaOrEnd';
      return true;
    }
    if (top.state !== 'value' && top.state !== 'valueOrEnd') return false;
    top.items.push(node);
    top.state = 'commaOrEnd';
    return true;
  };

  const expectsValue = (): boolean => {
    const top = stack[stack.length - 1];
    if (top === undefined) return root === undefined;
    return top.kind === 'object'
      ? top.state === 'value'
      : top.state === 'value' || top.state === 'valueOrEnd';
  };

  for (const tok of tokens) {
    const top = stack[stack.length - 1];
    switch (tok.t) {
      case '{':
      case '[':
        if (!expectsValue() || stack.length >= MAX_DEPTH) return undefined;
        stack.push(
          tok.t === '{'
            ? { kind: 'object', entries: [], state: 'keyOrEnd' }
            : { kind: 'array', items: [], state: 'valueOrEnd' },
        );
        break;
      case '}':
        if (top?.kind !== 'object' || (top.state !== 'keyOrEnd' && top.state !== 'commaOrEnd')) {
          return undefined;
        }
        stack.pop();
        if (!emit({ kind: 'object', entries: top.entries })) return undefined;
        break;
      case ']':
        if (top?.kind !== 'array' || (top.state !== 'valueOrEnd' && top.state !== 'commaOrEnd')) {
          return undefined;
        }
        stack.pop();
        if (!emit({ kind: 'array', items: top.items })) return undefined;
        break;
      case ':':
        if (top?.kind !== 'object' || top.state !== 'colon') return undefined;
        top.state = 'value';
        break;
      case ',':
        if (top === undefined || top.state !== 'commaOrEnd') return undefined;
        top.state = top.kind === 'object' ? 'key' : 'value';
        break;
      case 'string':
        if (top?.kind === 'object' && (top.state === 'keyOrEnd' || top.state === 'key')) {
          top.key = tok.value;
          top.state = 'colon';
        } else if (!emit({ kind: 'string', value: tok.value })) {
          return undefined;
        }
        break;
      case 'number':
        if (!emit({ kind: 'number', raw: tok.raw })) return undefined;
        break;
      case 'literal':
        if (
          !emit(
            tok.raw === 'null' ? { kind: 'null' } : { kind: 'boolean', value: tok.raw === 'true' },
          )
        ) {
          return undefined;
        }
        break;
    }
  }
  return stack.length === 0 ? root : undefined;
}

/** The document as a tree with numbers kept as written; undefined when not valid JSON. */
export function parseJsonText(text: string): JsonNode | undefined {
  const tokens = tokenize(text);
  return tokens === undefined ? undefined : parseTokens(tokens);
}

/** Go's json.Valid. */
export function isValidJson(text: string): boolean {
  return parseJsonText(text) !== undefined;
}

/** Go's json.Compact: the same tokens without whitespace; undefined when not valid JSON. */
export function compactJson(text: string): string | undefined {
  const tokens = tokenize(text);
  if (tokens === undefined || parseTokens(tokens) === undefined) return undefined;
  let out = '';
  for (const tok of tokens) out += 'raw' in tok ? tok.raw : tok.t;
  return out;
}

/** Length of the UTF-8 encoding (Go measures strings in bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    } else n += 3;
  }
  return n;
}
