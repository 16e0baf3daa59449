import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { formatDuration } from './duration';
import { createConvict, envNameOf, schemaLeaves } from './schema';
import type { VexilConfig } from './types';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ConfigSources {
  /** --config: a YAML or JSON file. */
  readonly file?: string;
  /** Command-line flags: key path -> raw text, e.g. {"server.http_port": "8081"}. */
  readonly flags?: Readonly<Record<string, string>>;
  readonly env?: NodeJS.ProcessEnv;
}

const LEAVES = new Map(schemaLeaves());

function readConfigFile(path: string): unknown {
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
    return doc;
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

/**
 * Loads the configuration: defaults < file < environment (VEXIL_*) < flags. Throws a
 * ConfigError whose message is one line naming the key and the problem.
 */
export function loadConfig(sources: ConfigSources = {}): VexilConfig {
  const env = sources.env ?? process.env;
  let conv;
  try {
    conv = createConvict(env);
    if (sources.file !== undefined) conv.load(readConfigFile(sources.file) as object);
    for (const [key, raw] of Object.entries(sources.flags ?? {})) {
      if (!LEAVES.has(key)) throw new ConfigError(`${key}: unknown key (flag --${key})`);
      conv.set(key, raw);
    }
    conv.validate({ allowed: 'strict' });
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(firstProblem((e as Error).message));
  }
  return conv.getProperties() as unknown as VexilConfig;
}

/** VEXIL_* variables that match no key (typos), to be warned about. */
export function unknownEnvironmentNames(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set([...LEAVES.keys()].map(envNameOf));
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

/**
 * `scheme://user:password@host` -> `scheme://user:***@host`; other text unchanged. Up to the
 * last "@", so a password holding one is masked whole (masking too much is the safe side).
 */
export function maskUrlPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)\S*@/i, '$1***@');
}
