// Copies the non-TypeScript files under src/ (SQL migrations, pages, styles,
// scripts) beside the compiled JavaScript in dist/, then stamps the build so
// bin/payrail.js knows dist/ is current.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

function copy(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copy(from);
    else if (!entry.name.endsWith('.ts')) {
      const to = path.join(dist, path.relative(src, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}

copy(src);
fs.writeFileSync(path.join(dist, '.built'), new Date().toISOString());
