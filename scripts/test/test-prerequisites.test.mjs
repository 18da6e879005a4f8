// @ts-check
// The test prerequisites' decision, asked about machines this one is not
// (Chromium missing, PostgreSQL stopped, no root, a remote test database),
// and the script's --dry-run on this one, which must change nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CHROMIUM, plan, pgTarget } from '../test-prerequisites.mjs';

/** @type {import('../test-prerequisites.mjs').Facts} */
const READY = {
  chromiumPath: DEFAULT_CHROMIUM,
  chromiumPresent: true,
  isRoot: true,
  hasAptGet: true,
  pg: { host: '127.0.0.1', port: 5432 },
  pgReady: true,
  hasPgCtlcluster: true,
  pgClusterVersions: ['15'],
};

describe('test prerequisites: the plan', () => {
  it('does nothing when everything is there', () => {
    assert.deepEqual(plan(READY), { steps: [], waitForPostgres: false, problems: [] });
  });

  it('installs Chromium with apt-get when it is missing, as root', () => {
    const todo = plan({ ...READY, chromiumPresent: false });
    assert.deepEqual(
      todo.steps.map((step) => [step.command.join(' '), step.env]),
      [
        ['apt-get update -q', { DEBIAN_FRONTEND: 'noninteractive' }],
        ['apt-get install -y -q chromium', { DEBIAN_FRONTEND: 'noninteractive' }],
      ],
    );
    assert.deepEqual(todo.problems, []);
  });

  it('starts the local PostgreSQL cluster when it does not answer, then waits for it', () => {
    const todo = plan({ ...READY, pgReady: false });
    assert.deepEqual(
      todo.steps.map((step) => step.command),
      [['pg_ctlcluster', '--skip-systemctl-redirect', '15', 'main', 'start']],
    );
    assert.equal(todo.waitForPostgres, true);
  });

  it('names what is missing and how to get it when it cannot set it up', () => {
    const notRoot = plan({ ...READY, isRoot: false, chromiumPresent: false, pgReady: false });
    assert.deepEqual(notRoot.steps, []);
    assert.equal(notRoot.problems.length, 2);
    assert.match(notRoot.problems[0] ?? '', /^Chromium is missing at \/usr\/bin\/chromium .*sudo apt-get install -y chromium/);
    assert.match(notRoot.problems[1] ?? '', /^PostgreSQL does not answer at 127\.0\.0\.1:5432 .*pg_ctlcluster.*PAYRAIL_TEST_DATABASE_URL/);

    const noApt = plan({ ...READY, hasAptGet: false, chromiumPresent: false });
    assert.match(noApt.problems[0] ?? '', /Chromium is missing/);
    const ownChromium = plan({ ...READY, chromiumPath: '/opt/chrome/chrome', chromiumPresent: false });
    assert.deepEqual(ownChromium.steps, []);
    assert.match(ownChromium.problems[0] ?? '', /PAYRAIL_CHROMIUM names no file/);
    const noCluster = plan({ ...READY, pgReady: false, pgClusterVersions: [] });
    assert.match(noCluster.problems[0] ?? '', /apt-get install -y postgresql/);
  });

  it('never starts a server for a remote test database', () => {
    const todo = plan({ ...READY, pg: pgTarget('postgres://ci@db.internal:5433/test'), pgReady: false });
    assert.deepEqual(todo.steps, []);
    assert.match(todo.problems[0] ?? '', /^PostgreSQL does not answer at db\.internal:5433 .*PAYRAIL_TEST_DATABASE_URL/);
    assert.deepEqual(pgTarget('postgres://postgres@127.0.0.1/test'), { host: '127.0.0.1', port: 5432 });
  });
});

describe('test prerequisites: --dry-run on this machine', () => {
  it('reports its facts and plan as JSON, running nothing', () => {
    const script = path.resolve(import.meta.dirname, '..', 'test-prerequisites.mjs');
    const result = spawnSync(process.execPath, [script, '--dry-run'], { encoding: 'utf8', env: { ...process.env, PAYRAIL_CHROMIUM: '/nonexistent/chromium' } });
    const report = JSON.parse(result.stdout);
    assert.equal(report.facts.chromiumPresent, false);
    assert.match(report.plan.problems[0], /PAYRAIL_CHROMIUM names no file/);
    assert.equal(result.status, 1);
  });
});
