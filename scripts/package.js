#!/usr/bin/env node
/*
 * Builds build/vexil: one executable for this platform (linux-x64 in CI), a Node single
 * executable application holding the bundled JavaScript, the files listed in
 * src/app/packaged-assets.ts and better-sqlite3's compiled addon. Run after `npm run build`
 * (`npm run package` does both).
 *
 * It fails, naming the cause, when something would only break at run time: a module that
 * cannot be bundled, a require() whose target is computed at run time and not known here to be
 * unused, a required asset folder that is missing, an executable that does not start.
 */
const { createHash } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT_DIR = path.join(ROOT, 'build');
const WORK_DIR = path.join(OUT_DIR, 'sea');
const EXECUTABLE = path.join(OUT_DIR, 'vexil');
const ENTRY = path.join(ROOT, 'dist', 'src', 'app', 'cli.js');
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/*
 * require() calls esbuild cannot follow (a computed name) that are known never to run in Vexil.
 * Any other one fails the build: make it static, or add it here with the reason it is unused.
 */
const UNBUNDLED_REQUIRES = [
  {
    file: 'node_modules/express/lib/view.js',
    why: 'template engines for res.render(), which Vexil never calls',
  },
  {
    file: 'node_modules/typeorm/connection/ConnectionOptionsReader.js',
    why: 'ormconfig files; Vexil passes its data source options in code',
  },
  {
    file: 'node_modules/typeorm/util/ImportUtils.js',
    why: 'entity and migration globs; Vexil passes the classes themselves',
  },
  {
    file: 'node_modules/yargs-parser/build/index.cjs',
    why: "convict's command-line parser reading `extends` files; Vexil gives convict no arguments",
  },
  {
    file: 'node_modules/better-sqlite3/lib/database.js',
    why: 'a nativeBinding given as a path; the executable hands over the loaded addon',
  },
  {
    file: 'node_modules/bindings/bindings.js',
    why: "better-sqlite3's search for its addon beside node_modules, skipped when nativeBinding is given",
  },
  {
    file: 'node_modules/mysql2/lib/helpers.js',
    why: "cardinal, mysql2's optional syntax highlighter for its debug output",
  },
  {
    file: 'node_modules/pg/lib/native/client.js',
    why: "pg-native, pg's optional libpq binding; Vexil uses pg's JavaScript client",
  },
];

/*
 * Bundled files that name __dirname or __filename. In the executable these name the
 * executable's directory, so a file read from there is not found. Each one is either known not
 * to read files in Vexil (why), or reads files that are embedded (embed: a folder of the
 * checkout, extracted at start under source/ with the same relative path); its __dirname then
 * names the extracted copy of its own directory. Any other fails the build.
 */
const DIRNAME_USES = [
  {
    file: 'dist/src/adapters/grpc/proto-definitions.js',
    embed: 'dist/src/adapters/grpc/proto',
  },
  {
    file: 'node_modules/@grpc/reflection/build/src/implementations/reflection-v1.js',
    embed: 'node_modules/@grpc/reflection/build/proto/grpc/reflection',
  },
  {
    file: 'node_modules/@grpc/reflection/build/src/implementations/reflection-v1alpha.js',
    embed: 'node_modules/@grpc/reflection/build/proto/grpc/reflection',
  },
  {
    file: 'dist/src/adapters/http/dashboard/static-files.js',
    why: 'the default dashboard directory; the executable passes its extracted copy (src/app/packaged-assets.ts)',
  },
  { file: 'node_modules/@colors/colors/lib/colors.js', why: 'in an error message only' },
  {
    file: 'node_modules/bindings/bindings.js',
    why: "better-sqlite3's search for its addon, skipped when nativeBinding is given",
  },
  {
    file: 'node_modules/@grpc/grpc-js/build/src/channelz.js',
    why: 'the channelz service protos; Vexil does not serve channelz',
  },
  {
    file: 'node_modules/@grpc/grpc-js/build/src/orca.js',
    why: 'ORCA load-report protos; Vexil does not enable ORCA',
  },
  {
    file: 'node_modules/ioredis/built/utils/index.js',
    why: 'its package.json for the version it reports to Redis; unreadable, it sends a placeholder',
  },
  { file: 'node_modules/ioredis/built/Command.js', why: 'trims stack traces by path only' },
  {
    file: 'node_modules/commander/lib/command.js',
    why: 'stand-alone executable subcommands, which Vexil does not use',
  },
];
const DIRNAME = /\b__(?:dirname|filename)\b/;

/** Records every bundled file naming __dirname; points the embedded ones' at their copy. */
function dirnameAudit(found) {
  const packaged = path.join(ROOT, 'dist', 'src', 'app', 'packaged.js');
  return {
    name: 'dirname-audit',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        if (!DIRNAME.test(source)) return undefined;
        const file = path.relative(ROOT, args.path).split(path.sep).join('/');
        found.add(file);
        const use = DIRNAME_USES.find((u) => u.file === file && u.embed !== undefined);
        if (use === undefined) return undefined;
        const replacement =
          `require(${JSON.stringify(packaged)}).packagedSourceDirectory(` +
          `${JSON.stringify(path.posix.dirname(file))})`;
        return { contents: source.replace(/\b__dirname\b/g, replacement), loader: 'js' };
      });
    },
  };
}

/*
 * TypeORM loads its database drivers with require(name), name computed: the bundle would hold
 * none of them. This gives it the drivers Vexil uses, by name, as static requires.
 */
const TYPEORM_DRIVERS = ['better-sqlite3', 'pg', 'mysql2'];
const TYPEORM_LOADER =
  /try\s*\{\s*(?:\/\/[^\n]*\s*)?return require\(name\);\s*\}\s*catch\s*\{[^}]*return require\([^;]*;\s*\}/;

const typeormDrivers = {
  name: 'typeorm-drivers',
  setup(build) {
    build.onLoad({ filter: /[\\/]typeorm[\\/]platform[\\/]PlatformTools\.js$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!TYPEORM_LOADER.test(source)) {
        throw new Error(
          `${path.relative(ROOT, args.path)}: TypeORM's driver loader no longer has the shape ` +
            'scripts/package.js replaces; update TYPEORM_LOADER there',
        );
      }
      const cases = TYPEORM_DRIVERS.map(
        (d) => `case ${JSON.stringify(d)}: return require(${JSON.stringify(d)});`,
      ).join(' ');
      const replacement =
        `switch (name) { ${cases} }\n` +
        'throw new Error(`database driver ${name} is not part of the vexil executable`);';
      return { contents: source.replace(TYPEORM_LOADER, replacement), loader: 'js' };
    });
  },
};

function fail(message) {
  process.stderr.write(`package: ${message}\n`);
  process.exit(1);
}

async function bundle() {
  const esbuild = require('esbuild');
  const dirnameUsers = new Set();
  const outfile = path.join(WORK_DIR, 'vexil.cjs');
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [ENTRY],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      minifyWhitespace: true,
      minifySyntax: true,
      keepNames: true,
      legalComments: 'none',
      logLevel: 'silent',
      // What esbuild otherwise only mentions at debug level, it must report here.
      logOverride: {
        'unsupported-require-call': 'warning',
        'indirect-require': 'warning',
        'unsupported-dynamic-import': 'warning',
        'ignored-dynamic-import': 'warning',
      },
      plugins: [typeormDrivers, dirnameAudit(dirnameUsers)],
    });
  } catch (err) {
    const errors = (err.errors ?? []).map(
      (e) => `  ${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`,
    );
    fail(`the JavaScript could not be bundled:\n${errors.join('\n') || err.message}`);
  }
  const unexpected = result.warnings.filter(
    (w) => !UNBUNDLED_REQUIRES.some((a) => w.location && w.location.file === a.file),
  );
  if (unexpected.length > 0) {
    const lines = unexpected.map(
      (w) => `  ${w.location ? `${w.location.file}:${w.location.line}: ` : ''}${w.text} [${w.id}]`,
    );
    fail(
      `the bundle would fail at run time:\n${lines.join('\n')}\n` +
        'Make the import static, or list it in UNBUNDLED_REQUIRES (scripts/package.js) with why it never runs.',
    );
  }
  const unknownDirname = [...dirnameUsers].filter((f) => !DIRNAME_USES.some((u) => u.file === f));
  if (unknownDirname.length > 0) {
    fail(
      `these bundled files name __dirname or __filename, which in the executable is not where ` +
        `their files are:\n  ${unknownDirname.join('\n  ')}\n` +
        'List each in DIRNAME_USES (scripts/package.js): why it reads nothing, or the folder to embed.',
    );
  }
  return outfile;
}

function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.isFile() ? [p] : [];
  });
}

/** key -> absolute path of every file to embed, the asset manifest included. */
function collectAssets() {
  const { PACKAGED_FOLDERS, SQLITE_ADDON_ASSET, ASSET_MANIFEST } = require(
    path.join(ROOT, 'dist', 'src', 'app', 'packaged-assets.js'),
  );
  const assets = new Map();
  for (const folder of PACKAGED_FOLDERS) {
    if (!fs.existsSync(folder.dir)) {
      if (folder.required) fail(`${path.relative(ROOT, folder.dir)} (${folder.name}) is missing`);
      process.stdout.write(`package: ${folder.name} not built, left out\n`);
      continue;
    }
    for (const file of filesUnder(folder.dir)) {
      const rel = path.relative(folder.dir, file).split(path.sep).join('/');
      assets.set(`${folder.name}/${rel}`, file);
    }
  }
  const addon = path.join(
    path.dirname(require.resolve('better-sqlite3/package.json')),
    'build',
    'Release',
    'better_sqlite3.node',
  );
  if (!fs.existsSync(addon)) fail(`${addon} is missing: npm ci builds it`);
  assets.set(SQLITE_ADDON_ASSET, addon);
  for (const folder of new Set(DIRNAME_USES.map((u) => u.embed).filter(Boolean))) {
    const dir = path.join(ROOT, folder);
    if (!fs.existsSync(dir)) fail(`${folder} is missing (embedded for DIRNAME_USES)`);
    for (const file of filesUnder(dir)) {
      assets.set(`source/${path.relative(ROOT, file).split(path.sep).join('/')}`, file);
    }
  }

  const sha256 = (data) => createHash('sha256').update(data).digest('hex');
  const files = [...assets].sort(([a], [b]) => a.localeCompare(b));
  const listed = files.map(([key, file]) => {
    const data = fs.readFileSync(file);
    return { key, size: data.length, sha256: sha256(data) };
  });
  const id = sha256(listed.map((f) => `${f.key}\0${f.sha256}`).join('\n')).slice(0, 16);
  const manifestPath = path.join(WORK_DIR, ASSET_MANIFEST);
  fs.writeFileSync(manifestPath, JSON.stringify({ id, files: listed }));
  assets.set(ASSET_MANIFEST, manifestPath);
  return assets;
}

async function main() {
  if (!fs.existsSync(ENTRY)) fail(`${path.relative(ROOT, ENTRY)} is missing: run npm run build`);
  fs.rmSync(WORK_DIR, { recursive: true, force: true });
  fs.mkdirSync(WORK_DIR, { recursive: true });

  const main = await bundle();
  const assets = collectAssets();
  const blob = path.join(WORK_DIR, 'sea-prep.blob');
  const seaConfig = path.join(WORK_DIR, 'sea-config.json');
  fs.writeFileSync(
    seaConfig,
    JSON.stringify({
      main,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets: Object.fromEntries(assets),
    }),
  );
  try {
    execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'pipe' });
  } catch (err) {
    fail(`node --experimental-sea-config failed:\n${err.stderr || ''}${err.stdout || ''}`);
  }

  fs.rmSync(EXECUTABLE, { force: true });
  fs.copyFileSync(process.execPath, EXECUTABLE);
  fs.chmodSync(EXECUTABLE, 0o755);
  const { inject } = require('postject');
  // Its ELF library warns about every note section it does not name; they are left as they are.
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/Can't find string offset for section name/.test(String(args[0]))) warn(...args);
  };
  try {
    await inject(EXECUTABLE, 'NODE_SEA_BLOB', fs.readFileSync(blob), { sentinelFuse: SEA_FUSE });
  } finally {
    console.warn = warn;
  }

  const version = require(path.join(ROOT, 'package.json')).version;
  const said = execFileSync(EXECUTABLE, ['--version'], { env: {}, cwd: WORK_DIR }).toString();
  if (said.trim() !== `vexil ${version}`) {
    fail(`build/vexil --version printed ${JSON.stringify(said)}, not "vexil ${version}"`);
  }
  const mb = (fs.statSync(EXECUTABLE).size / 1024 / 1024).toFixed(1);
  process.stdout.write(
    `package: ${path.relative(ROOT, EXECUTABLE)} (${mb} MiB, Node ${process.version}, ` +
      `${process.platform}-${process.arch}, ${assets.size} embedded files)\n`,
  );
}

main().catch((err) => fail(err.stack || String(err)));
