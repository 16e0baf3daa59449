#!/usr/bin/env node
// The layer rule (docs/architecture.md): src/domain and src/ports import nothing but
// src/domain and src/ports - no npm package, no node:* module, no adapter, no app code.
// src/adapters never imports src/app. Exits 1 and lists every violation.
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'src');
const importRe =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|import\s*['"]([^'"]+)['"]/g;

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.ts$/.test(e.name) ? [p] : [];
  });
}

const layerOf = (abs) => path.relative(src, abs).split(path.sep)[0];
const allowed = {
  domain: ['domain', 'ports'],
  ports: ['domain', 'ports'],
  adapters: ['domain', 'ports', 'adapters'],
};
const violations = [];

for (const file of files(src)) {
  const layer = layerOf(file);
  const rules = allowed[layer];
  if (!rules) continue;
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] || m[2] || m[3] || m[4];
    const rel = path.relative(root, file);
    if (spec.startsWith('.')) {
      const target = layerOf(path.resolve(path.dirname(file), spec));
      if (!rules.includes(target))
        violations.push(`${rel}: imports ${spec} (${layer} may not import ${target})`);
    } else if (layer === 'domain' || layer === 'ports') {
      violations.push(
        `${rel}: imports '${spec}' (${layer} may import no package and no node:* module)`,
      );
    }
  }
}

if (violations.length > 0) {
  console.error(
    `layer rule broken in ${violations.length} place(s):\n  ${violations.join('\n  ')}`,
  );
  process.exit(1);
}
console.log('layer rule holds');
