import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { composeDatabaseUrl, SPLIT_DATABASE_KEYS } from './database-url';
import { formatDuration } from './duration';
import { translateEnvironment, translateFile } from './flipt-translate';
import { createConvict, envNameOf, schemaLeaves } from './schema';
import type { VexilConfig } from './types';

import { ConfigError } from './config-error';

export { ConfigError };

export interface ConfigSources {
  /** --config: a YAML or JSON file. */
  readonly file?: string;
  /** Command-line flags: key path -> raw text, e.g. {"server.http_port": "8081"}. */
  readonly flags?: Readonly<Record<string, string>>;
  readonly env?: NodeJS.ProcessEnv;
}

/** Where a key's value came from, for `vexil config`. */
export type ConfigOrigin =
  | { readonly source: 'default' }
  | { readonly source: 'file'; readonly file: string; readonly name: string }
  | { readonly source: 'env'; readonly name: string }
  | { readonly source: 'flag'; readonly name: string }
  /** Made from other keys (db.url from Flipt's split form). */
  | { readonly source: 'derived'; readonly from: readonly string[] };

export interface LoadedConfig {
  readonly config: VexilConfig;
  /** One line per setting that is ignored (Flipt keys Vexil does not support). */
  readonly warnings: readonly string[];
  /** Every key's origin. */
  readonly origins: ReadonlyMap<string, ConfigOrigin>;
}

const LEAVES = new Map(schemaLeaves());
const ENV_NAMES = new Map([...LEAVES.keys()].map((path) => [path, envNameOf(path)]));

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `config file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
  try {
    const doc = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
    if (doc === null || doc === undefined) return {};
    if (typeof doc !== 'object' || Array.isArray(doc))
      throw new Error('the top level must be a map');
    return doc as Record<string, unknown>;
  } catch (e) {
    const reason = (e as Error).message.split('\n')[0];
    throw new ConfigError(`config file ${path}: ${reason}`);
  }
}

/** Turns convict's validation report into one line naming the first key at fault. */
function firstProblem(message: string): string {
  const line = message.split('\n').find((l) => l.trim() !== '') ?? message;
  const undeclared = /configuration param '([^']+)' not declared in the schema/.exec(line);
  if (undeclared) return `${undeclared[1]}: unknown key`;
  return line.replace(/^Error: /, '');
}

/** The leaf paths set in a (translated) file tree. */
function leafPaths(tree: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) => {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && !LEAVES.has(path)
      ? leafPaths(v as Record<string, unknown>, path)
      : [path];
  });
}

const isBooleanKey = (path: string): boolean => LEAVES.get(path)?.format === 'bool';

/**
 * Loads the configuration: defaults < file < environment < flags. The file and the
 * environment may use Flipt's names (`cache.*`, FLIPT_* variables): they are read as the
 * Vexil keys they match, Vexil's own names winning, and Flipt settings Vexil does not have
 * become warnings. Throws a ConfigError whose message is one line naming the key and the
 * problem.
 */
export function loadConfigWithSources(sources: ConfigSources = {}): LoadedConfig {
  const realEnv = sources.env ?? process.env;
  const warnings: string[] = [];
  const origins = new Map<string, ConfigOrigin>();
  for (const path of LEAVES.keys()) origins.set(path, { source: 'default' });

  const flipt = translateEnvironment(realEnv, ENV_NAMES, isBooleanKey);
  const env = { ...realEnv, ...flipt.env };
  let conv;
  try {
    conv = createConvict(env);
    if (sources.file !== undefined) {
      const file = translateFile(readConfigFile(sources.file), realEnv, (p) => LEAVES.has(p));
      warnings.push(...file.warnings);
      conv.load(file.tree);
      for (const path of leafPaths(file.tree)) {
        if (LEAVES.has(path)) {
          origins.set(path, {
            source: 'file',
            file: sources.file,
            name: file.aliases.get(path) ?? path,
          });
        }
      }
    }
    warnings.push(...flipt.warnings);
    for (const [path, name] of ENV_NAMES) {
      if (realEnv[name] !== undefined) origins.set(path, { source: 'env', name });
      else if (flipt.sources.has(path)) {
        origins.set(path, { source: 'env', name: flipt.sources.get(path) as string });
      }
    }
    for (const [key, raw] of Object.entries(sources.flags ?? {})) {
      if (!LEAVES.has(key)) throw new ConfigError(`${key}: unknown key (flag --${key})`);
      conv.set(key, raw);
      origins.set(key, { source: 'flag', name: `--${key}` });
    }
    conv.validate({ allowed: 'strict' });
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(firstProblem((e as Error).message));
  }
  const config = conv.getProperties() as unknown as VexilConfig;
  if (config.server.protocol === 'https') {
    for (const key of ['cert_file', 'cert_key'] as const) {
      if (config.server[key] === '') {
        throw new ConfigError(`server.${key}: required when server.protocol is https`);
      }
    }
  }
  if (origins.get('db.url')?.source === 'default') {
    const from = SPLIT_DATABASE_KEYS.filter((k) => origins.get(k)?.source !== 'default');
    if (from.length > 0) {
      config.db.url = composeDatabaseUrl(config.db);
      origins.set('db.url', { source: 'derived', from });
    }
  }
  return { config, warnings, origins };
}

export function loadConfig(sources: ConfigSources = {}): VexilConfig {
  return loadConfigWithSources(sources).config;
}

/** VEXIL_* variables that match no key (typos), to be warned about. */
export function unknownEnvironmentNames(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set(ENV_NAMES.values());
  return Object.keys(env).filter(
    (name) => name.startsWith('VEXIL_') && !name.startsWith('VEXIL_TEST_') && !known.has(name),
  );
}

/**
 * The configuration as `vexil config` prints it: flat keys, durations as written ("15s"),
 * passwords inside URLs masked (the rest of a database or Redis URL is kept, so a SQLite path
 * reads as itself), every other secret replaced by "***".
 */
export function redactedConfig(config: VexilConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, leaf] of LEAVES) {
    const value = path
      .split('.')
      .reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], config);
    if (leaf.format === 'duration' && typeof value === 'number') out[path] = formatDuration(value);
    else if (!leaf.sensitive || value === '' || value === undefined) out[path] = value;
    else if (path.endsWith('.url') && typeof value === 'string') out[path] = maskUrlPassword(value);
    else out[path] = '***';
  }
  return out;
}

/** Where a value came from, in words: `default`, `file f.yml (cache.ttl)`, `env FLIPT_CACHE_TTL`. */
export function describeOrigin(path: string, origin: ConfigOrigin): string {
  switch (origin.source) {
    case 'default':
      return 'default';
    case 'file':
      return `file ${origin.file}${origin.name === path ? '' : ` (${origin.name})`}`;
    case 'env':
      return `env ${origin.name}`;
    case 'flag':
      return `flag ${origin.name}`;
    case 'derived':
      return `derived from ${origin.from.join(', ')}`;
  }
}

/**
 * `scheme://user:password@host` -> `scheme://user:***@host`; other text unchanged. Up to the
 * last "@", so a password holding one is masked whole (masking too much is the safe side).
 */
export function maskUrlPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)\S*@/i, '$1***@');
}

const camel = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The effective configuration as GET /meta/config shows it: nested, keys in camelCase as
 * Flipt's JSON tags are, and every sensitive key (database URL, passwords, tokens, exporter
 * headers) left out rather than masked.
 */
export function publicConfig(config: VexilConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, leaf] of LEAVES) {
    if (leaf.sensitive) continue;
    const parts = path.split('.');
    const value = parts.reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], config);
    let node = out;
    parts.slice(0, -1).forEach((part) => {
      const key = camel(part);
      node = (node[key] ??= {}) as Record<string, unknown>;
    });
    node[camel(parts[parts.length - 1] as string)] =
      leaf.format === 'duration' && typeof value === 'number' ? formatDuration(value) : value;
  }
  return out;
}
