#!/usr/bin/env node
// Entry point of the `payrail` command. Runs the compiled JavaScript in dist/
// when it is at least as new as every source file (the install builds it);
// otherwise loads the TypeScript sources through tsx, so a stale build can
// never run by mistake.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function newestMtimeMs(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function builtIsCurrent() {
  try {
    return fs.statSync(path.join(root, 'dist', '.built')).mtimeMs >= newestMtimeMs(path.join(root, 'src'));
  } catch {
    return false;
  }
}

let main;
if (builtIsCurrent()) {
  ({ main } = await import('../dist/cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv);
