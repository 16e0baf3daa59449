/**
 * Go `encoding/json` decoding of a constraint value into `[]string` / `[]float64`.
 * JSON.parse accepts exactly the RFC 8259 grammar Go accepts; the differences handled
 * here are the typing rules: top-level `null` is an empty list, `null` elements are the
 * zero value, any other element type or an out-of-range number fails the whole decode,
 * and invalid surrogate escapes become U+FFFD as in Go.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function parseJson(text: string): { ok: boolean; value: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, value: undefined };
  }
}

/** `[]string` decode; undefined when Go's json.Unmarshal would return an error. */
export function parseJsonStringArray(text: string): string[] | undefined {
  const { ok, value } = parseJson(text);
  if (!ok) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const el of value as unknown[]) {
    if (el === null) out.push('');
    else if (typeof el === 'string') out.push(el.replace(LONE_SURROGATE, '\ufffd'));
    else return undefined;
  }
  return out;
}

/** `[]float64` decode; undefined when Go's json.Unmarshal would return an error. */
export function parseJsonNumberArray(text: string): number[] | undefined {
  const { ok, value } = parseJson(text);
  if (!ok) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const out: number[] = [];
  for (const el of value as unknown[]) {
    if (el === null) out.push(0);
    else if (typeof el === 'number' && Number.isFinite(el)) out.push(el);
    else return undefined;
  }
  return out;
}
