// The store is the only home of SQL and of the SQL handle. The import rules
// between layers are checked by dependency-cruiser (`npm run deps`); what an
// import graph cannot see is checked here on the source text: SQL statements,
// calls on a transaction handle and dialect branches outside src/store/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const outsideStore = sourceFiles(SRC).filter((file) => !file.startsWith(path.join(SRC, 'store') + path.sep));

/** Every line of a file outside the store that matches, as `file:line: text`. */
function offenders(pattern: RegExp): string[] {
  return outsideStore.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) ? [`${path.relative(SRC, file)}:${index + 1}: ${line.trim()}`] : [])),
  );
}

describe('architecture: the store owns SQL', () => {
  it('no SQL statement text outside src/store/', () => {
    assert.deepEqual(offenders(/['`"](SELECT|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM|CREATE TABLE|ALTER TABLE) /), []);
  });

  it('no calls on a transaction handle outside src/store/', () => {
    assert.deepEqual(offenders(/\btx\.(get|all|run|dialect)\b/), []);
  });

  it('no branch on the SQL dialect outside src/store/', () => {
    // The store handle's dialect (db.dialect, tx.dialect); a payin source's wire dialect (source.dialect) is another thing.
    assert.deepEqual(offenders(/\b(db|tx)\??\.dialect\s*[!=]==/), []);
  });

  it('the SQL handle type Tx is not imported outside src/store/', () => {
    assert.deepEqual(offenders(/import[^;]*\bTx\b[^;]*from/), []);
  });
});

// The store is a closed set of commands and queries: a flow decides, then
// submits one (it opens its own transaction); nothing outside the store holds
// a transaction handle, opens a transaction, or branches on the store's kind.
const HANDLE = /\bTxn?\b|\btx\b/;
const OPENS_TRANSACTION = /\bdb\??\.(write|read|readSnapshot)\s*[(<]/;
/** Of the store handle only: a payin source's wire dialect (principal.dialect, source.dialect) is not the store's kind. */
const STORE_KIND = /\b(db|tx)\??\.(batched|dialect)\b/;

describe('architecture: flows submit store commands', () => {
  it('no transaction handle (Tx, Txn, tx) outside src/store/', () => {
    assert.deepEqual(offenders(HANDLE), []);
  });

  it('no transaction opened outside src/store/', () => {
    assert.deepEqual(offenders(OPENS_TRANSACTION), []);
  });

  it("no branch on the store's kind outside src/store/ (its batching and dialect are the store's own)", () => {
    assert.deepEqual(offenders(STORE_KIND), []);
  });

  it('the checks find what they look for (planted lines are reported)', () => {
    const planted = [
      'const row = await deps.db.write(async (tx) => getCharge(tx, pk));',
      'async function step(tx: Txn): Promise<void> {}',
      'if (service.db.batched !== undefined) return;',
      'const rows = await service.db.read((t) => list(t));',
    ];
    assert.deepEqual(
      planted.map((line) => [HANDLE.test(line), OPENS_TRANSACTION.test(line), STORE_KIND.test(line)]),
      [
        [true, true, false],
        [true, false, false],
        [false, false, true],
        [false, true, false],
      ],
    );
    assert.equal(['const text = "context";', 'await reply.send(json);'].filter((line) => HANDLE.test(line) || OPENS_TRANSACTION.test(line)).length, 0);
  });

  it('the check finds what it looks for (a planted line is reported)', () => {
    const planted = ["const row = await tx.get('SELECT 1');"];
    assert.equal(planted.filter((line) => /\btx\.(get|all|run|dialect)\b/.test(line)).length, 1);
    assert.equal(planted.filter((line) => /['`"](SELECT|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM|CREATE TABLE|ALTER TABLE) /.test(line)).length, 1);
  });
});
