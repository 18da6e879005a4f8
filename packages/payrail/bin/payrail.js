#!/usr/bin/env node
// Entry point of the `payrail` command: runs the compiled JavaScript in dist/
// (built by `npm install` through the `prepare` script, or `npm run build`).
// Only built output ships and runs; the TypeScript sources are for development.
let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
  process.stderr.write('payrail: the compiled code is missing (dist/). Run `npm run build` in the payrail package, then try again.\n');
  process.exit(1);
}
process.exitCode = await main(process.argv);
