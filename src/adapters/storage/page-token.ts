import { InvalidArgumentError } from '../../domain/errors';
import type { ListRequest, Page } from '../../domain/model';
import { goQuote, parseJsonText } from '../../domain/validation';

/*
 * Flipt's list page tokens, shared by every store: standard base64 (padded) of compact
 * JSON `{"key":"<first key of the next page>","offset":<its absolute offset>}`, empty
 * fields omitted. Tokens are not signed; decoding reads only the offset, so any
 * base64 JSON object with an offset is accepted, as in Flipt.
 */

export interface PageToken {
  readonly key: string;
  readonly offset: number;
}

/** Where a page starts and how many items it holds; limit 0 means "everything". */
export interface PageWindow {
  readonly offset: number;
  readonly limit: number;
}

// Go's StdEncoding: padded alphabet; it skips CR and LF anywhere in the input.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UINT = /^(?:0|[1-9]\d*)$/;

/** Go's encoding/json string form (HTML characters escaped, as json.Marshal does). */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) =>
    c === '\u2028' || c === '\u2029'
      ? `\\u${c.charCodeAt(0).toString(16)}`
      : `\\u00${c.charCodeAt(0).toString(16)}`,
  );
}

export function encodePageToken(token: PageToken): string {
  const fields: string[] = [];
  if (token.key !== '') fields.push(`"key":${goJsonString(token.key)}`);
  if (token.offset !== 0) fields.push(`"offset":${token.offset}`);
  return Buffer.from(`{${fields.join(',')}}`, 'utf8').toString('base64');
}

/** Decodes like Go's json.Unmarshal into {Key string; Offset uint64}, field names folded. */
export function decodePageToken(token: string): PageToken {
  const invalid = (): InvalidArgumentError =>
    new InvalidArgumentError(`pageToken is not valid: ${goQuote(token)}`);
  const b64 = token.replace(/[\r\n]/g, '');
  if (!BASE64.test(b64)) throw invalid();
  const node = parseJsonText(Buffer.from(b64, 'base64').toString('utf8'));
  if (node === undefined || (node.kind !== 'object' && node.kind !== 'null')) throw invalid();
  let key = '';
  let offset = 0;
  if (node.kind === 'object') {
    for (const [name, value] of node.entries) {
      const field = name.toLowerCase();
      if (value.kind === 'null') continue;
      if (field === 'key') {
        if (value.kind !== 'string') throw invalid();
        key = value.value;
      } else if (field === 'offset') {
        if (value.kind !== 'number' || !UINT.test(value.raw)) throw invalid();
        // Beyond 2^53 every offset is past the end of any list anyway.
        offset = Math.min(Number(value.raw), Number.MAX_SAFE_INTEGER);
      }
    }
  }
  return { key, offset };
}

/**
 * The window a list request asks for. A page token wins over `offset`; `offset` is ignored
 * where the RPC has none (rollouts). Whether a position without a limit is allowed is the
 * validation's business (flags, segments, rules refuse it); here it simply applies.
 * Negative numbers count as 0.
 */
export function pageWindow(
  req: Pick<ListRequest, 'limit' | 'offset' | 'pageToken'>,
  options: { readonly ignoreOffset?: boolean } = {},
): PageWindow {
  let offset = 0;
  if (req.pageToken !== '') offset = decodePageToken(req.pageToken).offset;
  else if (!options.ignoreOffset && req.offset > 0) offset = req.offset;
  return { offset, limit: Math.max(0, req.limit) };
}

/**
 * Builds the page from the rows read at `window.offset`: either every remaining row or, as
 * SQL stores read them, at most `limit + 1`. The extra row only proves there is a next page;
 * its key goes into the token.
 */
export function pageOf<T>(
  rows: readonly T[],
  window: PageWindow,
  keyOf: (item: T) => string,
  totalCount: number,
): Page<T> {
  if (window.limit === 0) return { items: [...rows], nextPageToken: '', totalCount };
  const items = rows.slice(0, window.limit);
  const next = rows[window.limit];
  return {
    items,
    nextPageToken:
      next === undefined
        ? ''
        : encodePageToken({ key: keyOf(next), offset: window.offset + items.length }),
    totalCount,
  };
}
