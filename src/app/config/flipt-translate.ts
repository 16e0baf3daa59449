import { fliptEnvNameOf, fliptKey, FLIPT_KEYS, FLIPT_SECTIONS } from './flipt-keys';

/*
 * Reads a configuration written for Flipt: keys under Flipt's names become Vexil's, keys Vexil
 * does not support become warnings, and FLIPT_* variables are read with the same mapping.
 * Vexil's own names win over Flipt's when both are given.
 */

type Tree = Record<string, unknown>;

export interface Translated {
  /** The file's content under Vexil's key names, for the schema to validate. */
  readonly tree: Tree;
  /** One line per ignored key. */
  readonly warnings: readonly string[];
  /** Vexil key -> the name it was given under in the file, when that was not its own. */
  readonly aliases: ReadonlyMap<string, string>;
}

const isMap = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

function setPath(tree: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!isMap(next)) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1] as string] = value;
}

/** `${VAR}` as a whole string value is the variable's value, as in Flipt. */
function expand(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
    return m ? (env[m[1] as string] ?? '') : value;
  }
  if (Array.isArray(value)) return value.map((v) => expand(v, env));
  if (isMap(value)) {
    const out: Tree = {};
    for (const [k, v] of Object.entries(value)) out[k] = expand(v, env);
    return out;
  }
  return value;
}

const describe = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));

function warningFor(name: string, value: unknown, note: string | undefined, sensitive: boolean) {
  const shown = sensitive ? '' : ` (${describe(value)})`;
  return `${name}${shown} is a Flipt setting Vexil does not support; ignored${note ? `: ${note}` : ''}`;
}

/** Key names whose values are never repeated in a warning. */
const SECRET = /password|secret|token|key$|bytes$|credentials/i;

/**
 * Values Flipt accepts under names Vexil shares with it, but Vexil does not support: the key is
 * dropped with a warning instead of stopping start-up. Returns the note for the warning.
 */
const SHARED_NAME_UNSUPPORTED: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  'tracing.exporter': (v) =>
    typeof v === 'string' && v.toLowerCase() !== 'otlp'
      ? 'traces are exported over OTLP to tracing.otlp.endpoint'
      : undefined,
};

/**
 * The file's tree with Flipt's keys translated. `isVexilKey` tells Vexil's own leaves apart
 * (they are kept as they are, and unknown keys are left for the schema to refuse).
 */
export function translateFile(
  raw: Tree,
  env: NodeJS.ProcessEnv,
  isVexilKey: (path: string) => boolean,
): Translated {
  const tree: Tree = {};
  const warnings: string[] = [];
  const aliases = new Map<string, string>();
  const renamed: Array<[string, string, unknown]> = [];

  const visit = (node: unknown, path: string): void => {
    const flipt = path === '' ? undefined : isVexilKey(path) ? undefined : fliptKey(path);
    if (path !== '' && (isVexilKey(path) || (flipt !== undefined && !isMap(node)))) {
      leaf(path, node, flipt);
      return;
    }
    if (isMap(node) && (path === '' || flipt === undefined || isSection(path))) {
      for (const [k, v] of Object.entries(node)) visit(v, path === '' ? k : `${path}.${k}`);
      return;
    }
    leaf(path, node, flipt);
  };

  const leaf = (path: string, value: unknown, flipt: ReturnType<typeof fliptKey>): void => {
    if (flipt === undefined) {
      const note = SHARED_NAME_UNSUPPORTED[path]?.(value);
      if (note === undefined) setPath(tree, path, value);
      else warnings.push(warningFor(path, value, note, false));
    } else if (flipt.kind === 'renamed') {
      renamed.push([flipt.to, path, flipt.convert ? flipt.convert(value) : value]);
    } else if (!flipt.harmless?.(value)) {
      warnings.push(warningFor(path, value, flipt.note, SECRET.test(path)));
    }
  };

  visit(expand(raw, env), '');
  // Vexil's own name wins when the file gives both.
  for (const [to, from, value] of renamed) {
    if (getPath(tree, to) !== undefined) continue;
    setPath(tree, to, value);
    aliases.set(to, from);
  }
  return { tree, warnings, aliases };
}

const isSection = (path: string): boolean =>
  FLIPT_SECTIONS.some((s) => path === s || path.startsWith(`${s}.`));

function getPath(tree: Tree, path: string): unknown {
  let node: unknown = tree;
  for (const part of path.split('.')) {
    if (!isMap(node)) return undefined;
    node = node[part];
  }
  return node;
}

/** Go's strconv.ParseBool, as Flipt reads booleans from the environment. */
function goBool(text: string): string {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return 'true';
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return 'false';
  return text;
}

export interface TranslatedEnvironment {
  /** VEXIL_* names set from FLIPT_* variables, where no VEXIL_* variable is set. */
  readonly env: Record<string, string>;
  /** Vexil key -> the FLIPT_* variable it came from. */
  readonly sources: ReadonlyMap<string, string>;
  readonly warnings: readonly string[];
}

/**
 * FLIPT_* variables under Vexil's names. `vexilKeys` maps each Vexil key to its VEXIL_* name;
 * `isBoolean` says which keys take true/false (Flipt reads `1`, `t`, `TRUE` too).
 */
export function translateEnvironment(
  env: NodeJS.ProcessEnv,
  vexilKeys: ReadonlyMap<string, string>,
  isBoolean: (path: string) => boolean,
): TranslatedEnvironment {
  const byFliptName = new Map<
    string,
    { path: string; to: string; convert?: (v: unknown) => unknown }
  >();
  for (const path of vexilKeys.keys()) byFliptName.set(fliptEnvNameOf(path), { path, to: path });
  for (const [path, key] of FLIPT_KEYS) {
    if (key.kind === 'renamed') {
      byFliptName.set(fliptEnvNameOf(path), {
        path,
        to: key.to,
        ...(key.convert ? { convert: key.convert } : {}),
      });
    }
  }
  const out: Record<string, string> = {};
  const sources = new Map<string, string>();
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('FLIPT_')) continue;
    const raw = env[name] ?? '';
    const known = byFliptName.get(name);
    if (known === undefined) {
      const path = fliptPathOfEnvName(name);
      if (path === undefined) {
        warnings.push(`${name} matches no Flipt configuration key; ignored`);
      } else {
        const key = fliptKey(path);
        if (key !== undefined && key.kind === 'unsupported' && !key.harmless?.(raw)) {
          warnings.push(warningFor(name, raw, key.note, SECRET.test(path)));
        }
      }
      continue;
    }
    const vexilName = vexilKeys.get(known.to);
    if (vexilName === undefined || env[vexilName] !== undefined) continue;
    const note = SHARED_NAME_UNSUPPORTED[known.to]?.(raw);
    if (note !== undefined) {
      warnings.push(warningFor(name, raw, note, false));
      continue;
    }
    // A variable of the Vexil key's own name wins over an alias of it.
    if (sources.has(known.to) && known.path !== known.to) continue;
    let value: unknown = isBoolean(known.to) ? goBool(raw) : raw;
    if (known.convert) value = known.convert(goBool(raw) === 'true' ? true : value);
    out[vexilName] = String(value);
    sources.set(known.to, name);
  }
  return { env: out, sources, warnings };
}

/** The Flipt key path a FLIPT_* name stands for, among those Vexil knows are Flipt's. */
function fliptPathOfEnvName(name: string): string | undefined {
  for (const path of FLIPT_KEYS.keys()) if (fliptEnvNameOf(path) === name) return path;
  const section = FLIPT_SECTIONS.find((s) => name.startsWith(`${fliptEnvNameOf(s)}_`));
  if (section === undefined) return undefined;
  return `${section}.${name.slice(fliptEnvNameOf(section).length + 1).toLowerCase()}`;
}
