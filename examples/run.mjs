// @ts-check
// `npm run examples`: starts a local sandbox, runs every example against it
// as its own process, and exits non-zero if any fails.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startSandbox } from './local-sandbox.mjs';

const EXAMPLES = ['charge-and-send.mjs', 'authorize-capture-refund.mjs', 'saved-card-schedule.mjs', 'kyc-limited-receiver.mjs', 'new-receiver-invitation.mjs'];
/** One example taking longer than this has failed. */
const EXAMPLE_TIMEOUT_MS = 120_000;

/**
 * @param {string} file
 * @param {Record<string, string>} env
 * @returns {Promise<number>}
 */
function runExample(file, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, file)], { env: { ...process.env, ...env }, stdio: 'inherit' });
    const timer = setTimeout(() => child.kill('SIGKILL'), EXAMPLE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

const sandbox = await startSandbox();
let failed = 0;
try {
  console.log(`Payrail sandbox at ${sandbox.url}\n`);
  for (const file of EXAMPLES) {
    console.log(`--- ${file}`);
    const code = await runExample(file, sandbox.env);
    console.log(code === 0 ? `--- ${file}: ok\n` : `--- ${file}: FAILED (exit ${code})\n`);
    if (code !== 0) failed += 1;
  }
  const ledger = await sandbox.cli(['ledger', 'verify']);
  console.log(`ledger verify: ${ledger.ok ? 'ok' : `MISMATCH ${JSON.stringify(ledger.problems)}`}`);
  if (!ledger.ok) failed += 1;
} finally {
  await sandbox.stop();
}
console.log(`${EXAMPLES.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
