// Builds dist/ from scratch: removes what an earlier build left (so a file
// deleted from src/ cannot linger in dist/), compiles the TypeScript, then
// copies the non-TypeScript files under src/ (SQL migrations, pages, styles,
// scripts) beside the compiled JavaScript.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

function copyAssets(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(from);
    else if (!entry.name.endsWith('.ts')) {
      const to = path.join(dist, path.relative(src, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}

fs.rmSync(dist, { recursive: true, force: true });
const tsc = path.join(path.dirname(fs.realpathSync(new URL(import.meta.resolve('typescript')).pathname)), '..', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
copyAssets(src);
