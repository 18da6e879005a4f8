// The operator's everyday CLI: `--version`, `merchant list`, read-only
// commands that never create a store (or write to one), errors that name the
// store they used, and a port in use said in one line. Real processes, both
// stores.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openReadOnlyDb } from '../../src/store/read-only.ts';
import { runCli, runCliJson, storeNamed } from '../helpers/cli.ts';
import { freePort } from '../helpers/server.ts';
import { adminQuery, createStore, STORE_KINDS, TEST_DATABASE_URL, tempDir, type TestStore } from '../helpers/stores.ts';

const VERSION = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

interface Listed {
  merchants: Array<{ merchant_id: string; name: string; balance_cents: number; overdraft_cents: number; available_cents: number; payouts_must_link: boolean }>;
  has_more: boolean;
}

describe('payrail --version', () => {
  it('prints the package version and touches no store', async () => {
    const dataDir = path.join(tempDir(), 'never-created');
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], { PAYRAIL_DATA_DIR: dataDir });
      assert.deepEqual([result.code, result.stdout, result.stderr], [0, `${VERSION}\n`, '']);
    }
    assert.equal(fs.existsSync(dataDir), false);
  });
});

describe('read-only commands on a store that does not exist', () => {
  it('refuse with "no store at <path>" and create no data directory', async () => {
    const dataDir = path.join(tempDir(), 'nothing-here');
    const file = path.join(dataDir, 'payrail.sqlite');
    for (const args of [
      ['merchant', 'show', '--merchant', 'mer_x'],
      ['merchant', 'list'],
      ['ledger', 'verify'],
    ]) {
      const result = await runCli(args, { PAYRAIL_DATA_DIR: dataDir });
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(
        result.stderr,
        `payrail: no store at ${file} (start \`payrail serve\` or run \`payrail migrate\` to create one, or set PAYRAIL_DATA_DIR)\n`,
        args.join(' '),
      );
      assert.equal(result.stdout, '');
      assert.equal(fs.existsSync(dataDir), false, `${args.join(' ')} created ${dataDir}`);
    }
    const json = await runCli(['--json', 'merchant', 'list'], { PAYRAIL_DATA_DIR: dataDir });
    assert.deepEqual(JSON.parse(json.stderr), {
      error: {
        code: 'error',
        message: `no store at ${file} (start \`payrail serve\` or run \`payrail migrate\` to create one, or set PAYRAIL_DATA_DIR)`,
        store: file,
      },
    });
  });

  it('on PostgreSQL, refuse a database without the Payrail schema, creating none', async () => {
    const schema = `t_empty_${process.pid}`;
    await adminQuery(`CREATE SCHEMA ${schema}`);
    try {
      const url = `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      const result = await runCli(['merchant', 'list'], { DATABASE_URL: url, PAYRAIL_DATA_DIR: tempDir() });
      assert.equal(result.code, 1);
      assert.equal(
        result.stderr,
        `payrail: no Payrail store at ${storeNamed({ DATABASE_URL: url })} (no schema_migrations table; run \`payrail migrate\` to create one)\n`,
      );
    } finally {
      await adminQuery(`DROP SCHEMA ${schema} CASCADE`);
    }
  });
});

describe('errors name the store', () => {
  it('a PostgreSQL server that does not answer: one line naming the URL, never its password', async () => {
    const port = await freePort();
    const env = { DATABASE_URL: `postgres://payrail:s3cret-pw@127.0.0.1:${port}/payrail` };
    for (const args of [['merchant', 'show', '--merchant', 'mer_x'], ['merchant', 'create', '--name', 'X'], ['migrate']]) {
      const result = await runCli(args, env);
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, new RegExp(`^payrail: .*ECONNREFUSED.* \\(store: postgres://payrail@127\\.0\\.0\\.1:${port}/payrail\\)\\n$`), args.join(' '));
      assert.doesNotMatch(result.stderr, /s3cret-pw/);
      assert.equal(result.stderr.split('\n').length, 2, 'one line');
    }
  });
});

describe('payrail serve on a port in use', () => {
  it('says so in one line and exits 1, without a stack', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    const dataDir = tempDir();
    try {
      const result = await runCli(['serve'], { PAYRAIL_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PAYRAIL_WORKER: 'off', LOG_LEVEL: 'silent' });
      assert.equal(result.code, 1);
      assert.equal(result.stderr, `payrail: port ${port} on 127.0.0.1 is already in use: stop the process using it, or set PORT to a free port\n`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`payrail merchant list (${kind})`, () => {
    let store: TestStore;
    const ids: string[] = [];
    before(async () => {
      store = await createStore(kind);
      for (const name of ['Alpha', 'Beta', 'Gamma']) {
        ids.push((await runCliJson<{ merchant_id: string }>(['merchant', 'create', '--name', name], store.env)).merchant_id);
      }
      await runCliJson(['merchant', 'fund', '--merchant', ids[1]!, '--amount', '250.00'], store.env);
      await runCliJson(['merchant', 'overdraft', '--merchant', ids[1]!, '--amount', '50.00'], store.env);
    });
    after(async () => {
      await store.dispose();
    });

    it('lists every merchant oldest first with balance, overdraft and available funds', async () => {
      const listed = await runCliJson<Listed>(['merchant', 'list'], store.env);
      assert.equal(listed.has_more, false);
      assert.deepEqual(
        listed.merchants.map(({ merchant_id, name, balance_cents, overdraft_cents, available_cents, payouts_must_link }) => [
          merchant_id,
          name,
          balance_cents,
          overdraft_cents,
          available_cents,
          payouts_must_link,
        ]),
        [
          [ids[0], 'Alpha', 0, 0, 0, false],
          [ids[1], 'Beta', 25_000, 5_000, 30_000, false],
          [ids[2], 'Gamma', 0, 0, 0, false],
        ],
      );
      const text = await runCli(['merchant', 'list'], store.env);
      assert.equal(text.code, 0, text.stderr);
      const lines = text.stdout.trimEnd().split('\n');
      assert.equal(lines.length, 4);
      assert.match(lines[1]!, new RegExp(`^${ids[1]} +250\\.00 USD +overdraft +50\\.00 +available +300\\.00 +Beta$`));
      assert.equal(lines[3], '3 merchant(s)');
    });

    it('pages with --limit and --after', async () => {
      const first = await runCliJson<Listed>(['merchant', 'list', '--limit', '2'], store.env);
      assert.deepEqual([first.merchants.map((m) => m.merchant_id), first.has_more], [ids.slice(0, 2), true]);
      const rest = await runCliJson<Listed>(['merchant', 'list', '--limit', '2', '--after', ids[1]!], store.env);
      assert.deepEqual([rest.merchants.map((m) => m.merchant_id), rest.has_more], [[ids[2]], false]);
      const text = await runCli(['merchant', 'list', '--limit', '2'], store.env);
      assert.match(text.stdout, new RegExp(`more follow: payrail merchant list --after ${ids[1]}\\n$`));
      const unknown = await runCli(['--json', 'merchant', 'list', '--after', 'mer_nope'], store.env);
      assert.deepEqual(JSON.parse(unknown.stderr), { error: { code: 'not_found', message: 'merchant mer_nope not found', store: storeNamed(store.env) } });
      const bad = await runCli(['merchant', 'list', '--limit', '0'], store.env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--limit.*must be an integer from 1 to 10000/);
    });

    it('names the store in a refusal, as text too', async () => {
      const result = await runCli(['merchant', 'show', '--merchant', 'mer_nope'], store.env);
      assert.deepEqual([result.code, result.stderr], [1, `payrail: merchant mer_nope not found (store: ${storeNamed(store.env)})\n`]);
    });

    it('the read-only store reads and cannot write', async () => {
      const db = await openReadOnlyDb({ databaseUrl: store.env.DATABASE_URL ?? null, dataDir: store.dataDir, pgPoolSize: 2 });
      try {
        const count = await db.read((tx) => tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM merchants'));
        assert.equal(Number(count!.n), 3);
        await assert.rejects(
          db.read((tx) => tx.run("UPDATE merchants SET name = 'x'")),
          /read-only/,
        );
        await assert.rejects(
          db.write(async () => 1),
          /read-only/,
        );
        await assert.rejects(db.migrate(), /read-only/);
      } finally {
        await db.close();
      }
      const names = await store.db.read((tx) => tx.all<{ name: string }>('SELECT name FROM merchants ORDER BY name'));
      assert.deepEqual(
        names.map((row) => row.name),
        ['Alpha', 'Beta', 'Gamma'],
      );
    });
  });
}
