// The embedded store's driver survives the garbage collector freeing its
// statements. better-sqlite3 12 compiled against the headers of Node 24.19 or
// later aborts the whole process ("Assertion failed: (env) != nullptr" in
// node::RemoveEnvironmentCleanupHook) when V8 frees a statement from a task
// of its own, outside any JavaScript (nodejs/node#65446): seen as servers
// dying at random within a second of starting. The README and .ci/run say
// how to build it so; this test fails when the driver in node_modules was
// built otherwise, on whichever Node runs the suite.
//
// The churn below drops statements while making enough other garbage that
// V8 starts incremental marking and finishes it in a task: with a driver
// built against Node 24.21.0's headers it aborted in 3 runs of 3, built
// against 24.18.1's it ran to the end in every run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
/** Rounds of dropped statements; each ends in a timer, so V8's own tasks run between them. */
const ROUNDS = 200;
const STATEMENTS_PER_ROUND = 500;
const CHILD_TIMEOUT_MS = 120_000;

const CHURN = `
const Database = require(process.argv[1]);
const db = new Database(':memory:');
db.exec('CREATE TABLE t (a INTEGER)');
let round = 0;
function churn() {
  for (let i = 0; i < ${STATEMENTS_PER_ROUND}; i++) db.prepare('SELECT a + ' + (round * ${STATEMENTS_PER_ROUND} + i) + ' FROM t').all();
  const garbage = [];
  for (let i = 0; i < 20000; i++) garbage.push({ i, text: 'x'.repeat(20) });
  if (++round < ${ROUNDS}) setTimeout(churn, 1);
  else { db.close(); process.stdout.write('done ' + round); }
}
churn();
`;

test('statements freed by the garbage collector do not abort the process', () => {
  const driver = require.resolve('better-sqlite3');
  const child = spawnSync(process.execPath, ['-e', CHURN, driver], { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  assert.equal(
    child.signal,
    null,
    `the driver's process died of ${child.signal} on Node ${process.version}: better-sqlite3 was built against headers that abort when a statement is freed (see docs/install-and-test.md)\n${child.stderr.slice(0, 2000)}`,
  );
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, `done ${ROUNDS}`);
});
