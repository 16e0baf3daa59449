import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as sea from 'node:sea';
import {
  ASSET_MANIFEST,
  PACKAGED_FOLDERS,
  SQLITE_ADDON_ASSET,
  type AssetManifest,
} from './packaged-assets';

/** What the single executable extracted: directories by folder name, the SQLite addon. */
export interface PackagedAssets {
  readonly directory: string;
  readonly folders: Readonly<Record<string, string>>;
  readonly sqliteBinding: object;
}

/** True when running as the single executable (node:sea), not from a checkout. */
export const isPackaged = (): boolean => sea.isSea();

let extracted: PackagedAssets | undefined;

/**
 * Undefined from a checkout. In the single executable, writes the embedded files to a cache
 * directory (once per content: the directory is named by the manifest's id), checks every
 * file against its SHA-256 at each start, and loads the SQLite addon from there.
 */
export function packagedAssets(env: NodeJS.ProcessEnv = process.env): PackagedAssets | undefined {
  if (!isPackaged()) return undefined;
  extracted ??= extract(env);
  return extracted;
}

/**
 * The extracted copy of a directory of the checkout (`dist/src/adapters/grpc`,
 * `node_modules/@grpc/reflection/build/src/...`) whose module reads files relative to its own
 * location: scripts/package.js makes that module's directory name this.
 */
export function packagedSourceDirectory(relative: string): string {
  const assets = packagedAssets();
  if (assets === undefined) throw new Error('packagedSourceDirectory: not the single executable');
  return join(assets.directory, 'source', ...relative.split('/'));
}

function extract(env: NodeJS.ProcessEnv): PackagedAssets {
  const manifest = JSON.parse(sea.getAsset(ASSET_MANIFEST, 'utf8')) as AssetManifest;
  const directory = cacheDirectory(env, manifest.id);
  for (const file of manifest.files) {
    const target = join(directory, ...file.key.split('/'));
    if (sha256Of(target) === file.sha256) continue;
    const content = Buffer.from(sea.getRawAsset(file.key) as ArrayBuffer);
    if (sha256(content) !== file.sha256) {
      throw new Error(
        `the executable is damaged: embedded ${file.key} does not match its checksum`,
      );
    }
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeAtomically(target, content);
  }
  const folders: Record<string, string> = {};
  for (const folder of PACKAGED_FOLDERS) folders[folder.name] = join(directory, folder.name);
  const addon = { exports: {} as object };
  process.dlopen(addon, join(directory, ...SQLITE_ADDON_ASSET.split('/')));
  return { directory, folders, sqliteBinding: addon.exports };
}

/**
 * $XDG_CACHE_HOME/vexil/<id>, else ~/.cache/vexil/<id>, else (no writable home) a directory
 * of this user's own under the system's temporary directory.
 */
function cacheDirectory(env: NodeJS.ProcessEnv, id: string): string {
  const roots = [
    env['XDG_CACHE_HOME'] ? join(env['XDG_CACHE_HOME'], 'vexil') : undefined,
    safeHome() ? join(safeHome() as string, '.cache', 'vexil') : undefined,
    join(tmpdir(), `vexil-cache-${process.getuid?.() ?? 'user'}`),
  ].filter((r): r is string => r !== undefined);
  const failures: string[] = [];
  for (const root of roots) {
    const directory = join(root, id);
    try {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      assertPrivate(root);
      assertPrivate(directory);
      return directory;
    } catch (err) {
      failures.push(`${directory}: ${(err as Error).message}`);
    }
  }
  throw new Error(`no usable cache directory for the embedded files (${failures.join('; ')})`);
}

function safeHome(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
  }
}

/** The directory is ours and nobody else can write to it, so nobody can swap the addon. */
function assertPrivate(directory: string): void {
  const st = lstatSync(directory);
  if (!st.isDirectory()) throw new Error('not a directory');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error('owned by another user');
  if ((st.mode & 0o022) !== 0) chmodSync(directory, st.mode & ~0o022 & 0o7777);
}

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

function sha256Of(path: string): string | undefined {
  try {
    return sha256(readFileSync(path));
  } catch {
    return undefined;
  }
}

/** Written beside the target and renamed over it: a reader never sees half a file. */
function writeAtomically(target: string, content: Uint8Array): void {
  const temporary = `${target}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, target);
}
