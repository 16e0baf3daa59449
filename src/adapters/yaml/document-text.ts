import yaml from 'js-yaml';
import type { TransferProblem } from '../../domain/transfer';

/*
 * Text <-> plain values for the portable document format: YAML streams (`---` between
 * documents) and JSON streams (objects one after another). Everything about the format's
 * meaning is the domain's (src/domain/transfer); this only reads and writes text.
 */

export type DocumentEncoding = 'yaml' | 'json';

/** `.json` files are JSON, anything else YAML (as `flipt export -o` decides). */
export const encodingOfPath = (path: string): DocumentEncoding =>
  path.toLowerCase().endsWith('.json') ? 'json' : 'yaml';

/** For text without a file name: JSON when it starts with `{` (after a `#` comment line). */
export function sniffEncoding(text: string): DocumentEncoding {
  return withoutCommentLine(text).trimStart().startsWith('{') ? 'json' : 'yaml';
}

export interface ParsedStream {
  /** One entry per document in the stream, undefined for an empty one. */
  readonly values: readonly unknown[];
  readonly problems: readonly TransferProblem[];
}

export function parseDocumentStream(text: string, encoding: DocumentEncoding): ParsedStream {
  return encoding === 'json' ? parseJsonStream(text) : parseYamlStream(text);
}

/*
 * js-yaml rather than the `yaml` package the configuration loader uses: on a document of
 * 10 000 flags it reads and writes about ten times faster. The core schema (YAML 1.2: no
 * timestamps or binary, so `2024-01-02T03:04:05Z` stays text) with `<<` merge keys, as Flipt's
 * YAML reader takes them.
 */
// js-yaml exports its built-in types; its type declarations leave them out.
const { merge, timestamp } = (
  yaml as unknown as { types: Record<'merge' | 'timestamp', yaml.Type> }
).types;
const SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [merge] });
/*
 * Writing knows timestamps only to quote them: Flipt's Go YAML encoder resolves a plain
 * `2024-01-02T03:04:05Z` as a timestamp and so writes a string of that form in double quotes.
 */
const DUMP_SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [merge, timestamp] });

/** The stream position of a document-start line (`---`) before `offset`, counted. */
function documentAt(text: string, offset: number): number {
  const before = text.slice(0, offset);
  const markers = before.match(/^---(?=\s|$)/gm)?.length ?? 0;
  return /^\s*---(?=\s|$)/.test(text) ? Math.max(markers, 1) : markers + 1;
}

function parseYamlStream(text: string): ParsedStream {
  try {
    const values = yaml.loadAll(text, null, { schema: SCHEMA });
    return { values: values.map((v) => (v === null ? undefined : v)), problems: [] };
  } catch (err) {
    if (!(err instanceof yaml.YAMLException)) throw err;
    const position = err.mark?.position ?? 0;
    const line =
      err.mark === undefined ? '' : ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}`;
    return {
      values: [],
      problems: [
        { document: documentAt(text, position), path: '', reason: `${err.reason}${line}` },
      ],
    };
  }
}

/** Flipt skips a first line starting with `#` in JSON input. */
function withoutCommentLine(text: string): string {
  if (!text.startsWith('#')) return text;
  const nl = text.indexOf('\n');
  // Keep the newline so line numbers in messages still match the file.
  return nl === -1 ? '' : ' '.repeat(nl) + text.slice(nl);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The end (exclusive) of the JSON value starting at `start`, or -1 when it never closes. */
function endOfValue(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[') {
    // A scalar at the top: up to the next whitespace or structural character.
    let i = start;
    if (text[i] === '"') {
      for (i++; i < text.length; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '"') return i + 1;
      }
      return -1;
    }
    while (i < text.length && !/[\s{[]/.test(text[i] as string)) i++;
    return i;
  }
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function parseJsonStream(raw: string): ParsedStream {
  const text = withoutCommentLine(raw);
  const values: unknown[] = [];
  const problems: TransferProblem[] = [];
  let i = 0;
  for (let document = 1; ; document++) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (i >= text.length) break;
    const end = endOfValue(text, i);
    if (end === -1) {
      problems.push({
        document,
        path: '',
        reason: `line ${lineOf(text, i)}: unexpected end of JSON input`,
      });
      break;
    }
    try {
      values.push(JSON.parse(text.slice(i, end)));
    } catch (err) {
      problems.push({
        document,
        path: '',
        reason: `line ${lineOf(text, i)}: ${(err as Error).message}`,
      });
      values.push(undefined);
    }
    i = end;
  }
  return { values, problems };
}

/** The documents as one stream, each ending with a newline. */
export function formatDocumentStream(
  values: readonly unknown[],
  encoding: DocumentEncoding,
): string {
  if (encoding === 'json') return values.map((v) => `${JSON.stringify(v, null, 2)}\n`).join('');
  return values
    .map((v) =>
      yaml.dump(v, {
        schema: DUMP_SCHEMA,
        indent: 2,
        lineWidth: -1,
        noRefs: true,
        quotingType: '"',
      }),
    )
    .join('---\n');
}
