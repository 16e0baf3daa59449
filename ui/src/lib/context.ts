/** The evaluation console's context: key/value rows or a JSON object of strings. */

export interface ContextRow {
  readonly id: number;
  readonly key: string;
  readonly value: string;
}

export type ContextResult =
  { ok: true; context: Record<string, string> } | { ok: false; error: string; row?: number };

/** Rows -> context; blank rows are ignored, a repeated key is an error on its second row. */
export function rowsToContext(rows: readonly ContextRow[]): ContextResult {
  const context: Record<string, string> = {};
  for (const [index, row] of rows.entries()) {
    const key = row.key.trim();
    if (key === '' && row.value === '') continue;
    if (key === '') return { ok: false, error: 'Enter a key for this value.', row: index };
    if (Object.hasOwn(context, key)) {
      return { ok: false, error: `"${key}" is already set above.`, row: index };
    }
    context[key] = row.value;
  }
  return { ok: true, context };
}

/**
 * JSON text -> context. The API takes string values only; numbers and booleans are turned
 * into their text so a pasted `{"age": 30}` works, other values are refused.
 */
export function jsonToContext(text: string): ContextResult {
  if (text.trim() === '') return { ok: true, context: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Not valid JSON: ${(err as Error).message}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, error: 'The context must be a JSON object, like {"plan": "pro"}.' };
  }
  const context: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') context[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') context[key] = String(value);
    else if (value === null) context[key] = '';
    else return { ok: false, error: `"${key}" must be a string, number or boolean.` };
  }
  return { ok: true, context };
}

let nextId = 1;

export function newRow(key = '', value = ''): ContextRow {
  nextId += 1;
  return { id: nextId, key, value };
}

export function contextToRows(context: Record<string, string>): ContextRow[] {
  const rows = Object.entries(context).map(([k, v]) => newRow(k, v));
  return rows.length === 0 ? [newRow()] : rows;
}

export function contextToJson(context: Record<string, string>): string {
  return JSON.stringify(context, null, 2);
}
