import { DASHBOARD_DIST_DIR } from '../adapters/http/dashboard/static-files';

/*
 * What the single executable carries besides its JavaScript (scripts/package.js embeds it, and
 * ./packaged.ts extracts it at start). Each folder is named by the directory its module reads
 * from when run from a checkout, so the executable picks up whatever that directory holds.
 */

export interface PackagedFolder {
  /** Its name inside the executable, and the name of its directory once extracted. */
  readonly name: string;
  /** Where the files are in a built checkout. */
  readonly dir: string;
  /** Packaging fails without it; an optional folder (not built) is left out. */
  readonly required: boolean;
}

export const PACKAGED_FOLDERS: readonly PackagedFolder[] = [
  { name: 'dashboard', dir: DASHBOARD_DIST_DIR, required: true },
];

/** better-sqlite3's compiled addon, loaded from the extracted copy. */
export const SQLITE_ADDON_ASSET = 'native/better_sqlite3.node';

/** The list of embedded files (key, size, SHA-256) and the content id of the whole set. */
export const ASSET_MANIFEST = 'assets.json';

export interface AssetManifest {
  /** Names the extraction directory: same content, same directory. */
  readonly id: string;
  readonly files: ReadonlyArray<{ key: string; size: number; sha256: string }>;
}
