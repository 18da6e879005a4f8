#!/usr/bin/env node
// @ts-check
// Run first by the root `npm test`: makes sure the two things the tests need
// beyond npm packages are there, so `npm install && npm test` is enough on a
// fresh machine of the project's kind (Debian, root, apt):
//   - Chromium for the browser tests (/usr/bin/chromium, or PAYRAIL_CHROMIUM):
//     installed with apt-get when missing;
//   - the PostgreSQL server of the store tests (PAYRAIL_TEST_DATABASE_URL,
//     default 127.0.0.1:5432): the machine's own cluster is started with
//     pg_ctlcluster when it does not answer.
// What cannot be set up is named with how to get it, and the script exits 1.
//
// The decision is a pure function (plan) of the facts it gathers, so it can
// be tested without uninstalling anything: `--dry-run` prints the facts and
// the plan as JSON and changes nothing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** How long a started PostgreSQL may take to accept connections. */
const PG_START_WAIT_S = 30;
/** How long one apt-get or pg_ctlcluster command may take. */
const COMMAND_TIMEOUT_MS = 15 * 60_000;

/**
 * @typedef {object} Facts
 * @property {string} chromiumPath
 * @property {boolean} chromiumPresent
 * @property {boolean} isRoot
 * @property {boolean} hasAptGet
 * @property {{ host: string, port: number }} pg
 * @property {boolean} pgReady
 * @property {boolean} hasPgCtlcluster
 * @property {string[]} pgClusterVersions the versions under /etc/postgresql
 */

/**
 * @typedef {object} Step
 * @property {string} why
 * @property {string[]} command
 * @property {Record<string, string>} [env]
 */

/**
 * @typedef {object} Plan
 * @property {Step[]} steps what to run, in order
 * @property {boolean} waitForPostgres after the steps, wait for PostgreSQL to accept connections
 * @property {string[]} problems what is missing and cannot be set up here, each with how to get it
 */

/**
 * What to do about the facts: pure, so tests can ask it about machines they are not.
 * @param {Facts} facts
 * @returns {Plan}
 */
export function plan(facts) {
  /** @type {Step[]} */
  const steps = [];
  /** @type {string[]} */
  const problems = [];
  let waitForPostgres = false;

  if (!facts.chromiumPresent) {
    if (facts.chromiumPath === DEFAULT_CHROMIUM && facts.isRoot && facts.hasAptGet) {
      const env = { DEBIAN_FRONTEND: 'noninteractive' };
      steps.push({ why: 'the browser tests need Chromium', command: ['apt-get', 'update', '-q'], env });
      steps.push({ why: 'the browser tests need Chromium', command: ['apt-get', 'install', '-y', '-q', 'chromium'], env });
    } else {
      problems.push(
        `Chromium is missing at ${facts.chromiumPath} (the browser tests drive it): ` +
          (facts.chromiumPath === DEFAULT_CHROMIUM
            ? 'install it with `sudo apt-get install -y chromium` (Debian), or set PAYRAIL_CHROMIUM to a Chromium or Chrome binary'
            : 'PAYRAIL_CHROMIUM names no file; point it at a Chromium or Chrome binary, or unset it to use /usr/bin/chromium'),
      );
    }
  }

  if (!facts.pgReady) {
    const where = `${facts.pg.host}:${facts.pg.port}`;
    const local = (facts.pg.host === '127.0.0.1' || facts.pg.host === 'localhost') && facts.pg.port === 5432;
    const version = facts.pgClusterVersions[0];
    if (local && version !== undefined && facts.hasPgCtlcluster && facts.isRoot) {
      steps.push({
        why: `the store tests need PostgreSQL at ${where}`,
        command: ['pg_ctlcluster', '--skip-systemctl-redirect', version, 'main', 'start'],
      });
      waitForPostgres = true;
    } else {
      problems.push(
        `PostgreSQL does not answer at ${where} (the store tests run on it): ` +
          (local ? 'start the local server (Debian: `sudo pg_ctlcluster <version> main start`; install it with `sudo apt-get install -y postgresql`), ' : '') +
          'or set PAYRAIL_TEST_DATABASE_URL to a server with trust auth and a database `test`',
      );
    }
  }
  return { steps, waitForPostgres, problems };
}

/**
 * @param {string} url
 * @returns {{ host: string, port: number }}
 */
export function pgTarget(url) {
  const parsed = new URL(url);
  return { host: parsed.hostname === '' ? '127.0.0.1' : parsed.hostname, port: parsed.port === '' ? 5432 : Number(parsed.port) };
}

/** @param {string} command */
function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** @param {{ host: string, port: number }} pg */
function pgReady(pg) {
  if (!onPath('pg_isready')) return false;
  return spawnSync('pg_isready', ['-h', pg.host, '-p', String(pg.port), '-q'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

/**
 * The facts of this machine.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Facts}
 */
export function gatherFacts(env = process.env) {
  const chromiumPath = env.PAYRAIL_CHROMIUM ?? DEFAULT_CHROMIUM;
  const pg = pgTarget(env.PAYRAIL_TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL);
  return {
    chromiumPath,
    chromiumPresent: fs.existsSync(chromiumPath),
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    hasAptGet: onPath('apt-get'),
    pg,
    pgReady: pgReady(pg),
    hasPgCtlcluster: onPath('pg_ctlcluster'),
    pgClusterVersions: fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql').sort() : [],
  };
}

/** @param {number} seconds */
function sleepSeconds(seconds) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, seconds * 1000);
}

/** @param {Facts} facts @param {Plan} todo @returns {number} */
function carryOut(facts, todo) {
  for (const step of todo.steps) {
    console.log(`test prerequisites: ${step.why}: ${step.command.join(' ')}`);
    const result = spawnSync(step.command[0] ?? '', step.command.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, ...step.env },
      timeout: COMMAND_TIMEOUT_MS,
    });
    if (result.status !== 0) {
      console.error(`test prerequisites: \`${step.command.join(' ')}\` failed (exit ${result.status ?? result.signal}); ${step.why}`);
      return 1;
    }
  }
  if (todo.waitForPostgres) {
    let ready = false;
    for (let second = 0; second < PG_START_WAIT_S && !ready; second += 1) {
      ready = pgReady(facts.pg);
      if (!ready) sleepSeconds(1);
    }
    if (!ready) {
      console.error(
        `test prerequisites: PostgreSQL was started but does not accept connections at ${facts.pg.host}:${facts.pg.port} after ${PG_START_WAIT_S} s`,
      );
      return 1;
    }
  }
  if (!facts.chromiumPresent && !fs.existsSync(facts.chromiumPath)) {
    console.error(`test prerequisites: Chromium is still missing at ${facts.chromiumPath} after installing it`);
    return 1;
  }
  return 0;
}

function main() {
  const facts = gatherFacts();
  const todo = plan(facts);
  if (process.argv.includes('--dry-run')) {
    console.log(JSON.stringify({ facts, plan: todo }, null, 2));
    return todo.problems.length === 0 ? 0 : 1;
  }
  for (const problem of todo.problems) console.error(`test prerequisites: ${problem}`);
  if (todo.problems.length > 0) return 1;
  return carryOut(facts, todo);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
