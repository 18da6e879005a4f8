// The OpenAPI document passes Redocly's recommended lint rules with no error
// and no warning (openapi-lint/redocly.yaml; accepted exceptions, each with
// its reason, in openapi-lint/.redocly.lint-ignore.yaml).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { tempDir } from '../helpers/stores.ts';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '..', '..');
const LINT_CONFIG_DIR = path.join(PACKAGE_DIR, 'openapi-lint');
const REDOCLY = path.resolve(PACKAGE_DIR, '..', '..', 'node_modules', '.bin', 'redocly');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
}

describe('OpenAPI lint (Redocly recommended rules)', () => {
  let t: TestApp;
  const dir = tempDir('payrail-openapi-lint-');
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports no error and no warning', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    fs.writeFileSync(path.join(dir, 'openapi.json'), response.body);
    for (const file of ['redocly.yaml', '.redocly.lint-ignore.yaml']) fs.copyFileSync(path.join(LINT_CONFIG_DIR, file), path.join(dir, file));
    // Redocly exits non-zero when it finds errors; the report on stdout says which either way.
    const { stdout } = await promisify(execFile)(REDOCLY, ['lint', 'openapi.json', '--config', 'redocly.yaml', '--format=json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as LintReport;
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    assert.deepEqual(problems, []);
    assert.equal(report.totals.errors, 0);
    assert.equal(report.totals.warnings, 0);
  });
});
