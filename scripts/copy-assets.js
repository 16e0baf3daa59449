#!/usr/bin/env node
// Copies non-TypeScript runtime assets (the .proto files) next to the compiled output.
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
function copy(dir) {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) copy(p);
    else if (/\.(proto|json|yaml)$/.test(e.name)) {
      const out = path.join(root, 'dist', path.relative(root, p));
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.copyFileSync(p, out);
    }
  }
}
copy(path.join(root, 'src'));
