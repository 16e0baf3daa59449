import type { JsonObject } from '../model';
import type { TransferProblem } from './problems';

export type Fields = { readonly [key: string]: unknown };

const isMap = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads plain values (as YAML or JSON parsers give them) field by field, collecting a problem
 * for each value of the wrong kind instead of stopping at the first, so one run of
 * `vexil validate` names everything to fix.
 */
export class ValueReader {
  readonly problems: TransferProblem[] = [];

  constructor(readonly document: number) {}

  problem(path: string, reason: string): void {
    this.problems.push({ document: this.document, path, reason });
  }

  /** A map, or undefined (with a problem) when the value is something else. */
  map(value: unknown, path: string, what = 'a map'): Fields | undefined {
    if (isMap(value)) return value;
    this.problem(path, `must be ${what}`);
    return undefined;
  }

  /** Flags a field the format does not have: a typo would otherwise be dropped silently. */
  onlyKnown(fields: Fields, known: readonly string[], path: string): void {
    for (const name of Object.keys(fields)) {
      if (!known.includes(name)) this.problem(join(path, name), 'unknown field');
    }
  }

  /** Text; a number or boolean written without quotes counts as its text. */
  string(fields: Fields, name: string, path: string): string {
    const v = fields[name];
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return String(v);
    this.problem(join(path, name), 'must be text');
    return '';
  }

  boolean(fields: Fields, name: string, path: string): boolean {
    const v = fields[name];
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    this.problem(join(path, name), 'must be true or false');
    return false;
  }

  number(fields: Fields, name: string, path: string): number {
    const v = fields[name];
    if (v === undefined || v === null) return 0;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    this.problem(join(path, name), 'must be a finite number');
    return 0;
  }

  /** A whole number of at least 0. */
  count(fields: Fields, name: string, path: string): number {
    const n = this.number(fields, name, path);
    if (!Number.isInteger(n) || n < 0) {
      this.problem(join(path, name), 'must be a whole number of at least 0');
      return 0;
    }
    return n;
  }

  list(fields: Fields, name: string, path: string): readonly unknown[] {
    const v = fields[name];
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    this.problem(join(path, name), 'must be a list');
    return [];
  }

  /** A list of keys. */
  strings(fields: Fields, name: string, path: string): string[] {
    return this.list(fields, name, path).flatMap((item, i) => {
      if (typeof item === 'string') return [item];
      this.problem(join(path, `${name}/${i + 1}`), 'must be text');
      return [];
    });
  }

  /** One of the names of an enum; `fallback` when the field is absent. */
  enumName<T extends string>(
    fields: Fields,
    name: string,
    path: string,
    names: readonly T[],
    fallback: T,
  ): T {
    const v = fields[name];
    if (v === undefined || v === null || v === '') return fallback;
    if (typeof v === 'string' && (names as readonly string[]).includes(v)) return v as T;
    this.problem(join(path, name), `must be one of ${names.join(', ')}`);
    return fallback;
  }

  /** A map of JSON values (flag metadata); undefined when absent. */
  jsonObject(fields: Fields, name: string, path: string): JsonObject | undefined {
    const v = fields[name];
    if (v === undefined || v === null) return undefined;
    if (!isMap(v)) {
      this.problem(join(path, name), 'must be a map');
      return undefined;
    }
    return this.jsonValue(v, join(path, name)) as JsonObject;
  }

  /** Checks that a value can be written as JSON (finite numbers, string map keys). */
  jsonValue(value: unknown, path: string): unknown {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) this.problem(path, 'must hold finite numbers only');
      return value;
    }
    if (Array.isArray(value))
      return value.map((item, i) => this.jsonValue(item, `${path}/${i + 1}`));
    if (isMap(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(value)) out[k] = this.jsonValue(item, join(path, k));
      return out;
    }
    this.problem(path, 'must be a JSON value');
    return null;
  }
}

export const join = (path: string, name: string): string =>
  path === '' ? name : `${path}/${name}`;

/** The path step of a keyed item: its key, or its position when it has none. */
export const itemStep = (key: string, position: number): string =>
  key === '' ? `#${position}` : key;
