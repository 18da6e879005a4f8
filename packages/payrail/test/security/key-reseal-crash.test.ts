// SIGKILL of the worker while it re-seals card data under a new card-data
// key (finding 16; docs/security.md): a child process running the worker's
// re-seal job (helpers/reseal-worker-child.ts) is killed midway; a new one
// resumes after the last batch the killed one committed. Afterwards every
// value is sealed once under the new key (its header names key 2 and it
// opens straight to its card number: nothing lost, nothing sealed over its
// sealed form), the saved cards still charge, and the old key retires. Both stores.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sealedKeyOf } from '../../src/crypto/card-cipher.ts';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { RING_REFRESH_MS } from '../../src/crypto/key-ring.ts';
import { Secret } from '../../src/domain/secret.ts';
import { cardKeysStatus, retireCardKey, rotateCardKey } from '../../src/flows/card-keys/rotation.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicOf, postCharge } from '../helpers/payin.ts';
import { newCustomer, saveCardFor } from '../helpers/stored.ts';
import { STORE_KINDS, testConfigHome } from '../helpers/stores.ts';

const PACKAGE = path.join(import.meta.dirname, '..', '..');
const WORKER = path.join(PACKAGE, 'test', 'helpers', 'reseal-worker-child.ts');
/** Card tokens sealed before the rotation: several of the job's 200-row batches. */
const TOKENS = 1000;
const DEADLINE_MS = 90_000;

interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
}

/** Runs the re-seal child; kills it as soon as it reports batch `killAtBatch` when given. */
function runWorker(env: Record<string, string>, killAtBatch: number | null): Promise<ChildRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: PACKAGE,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: testConfigHome(), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (killAtBatch !== null && out.includes(`BATCH ${killAtBatch}\n`)) child.kill('SIGKILL');
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, out });
    }),
  );
}

/** A 16-digit number per token (not a card: it is only sealed and compared). */
function numberOf(i: number): string {
  return `4000${String(i).padStart(12, '0')}`;
}

async function tokenKeys(t: TestApp): Promise<{ byKey: Map<number, number>; rows: Array<{ card_ref: string; source_id: string; v: Uint8Array }> }> {
  const rows = await t.service.db.read((tx) =>
    tx.all<{ card_ref: string; source_id: string; v: Uint8Array }>(
      "SELECT card_ref, source_id, card_number_enc AS v FROM card_tokens WHERE card_ref LIKE 'crash%' ORDER BY card_ref",
    ),
  );
  const byKey = new Map<number, number>();
  for (const row of rows) {
    const id = sealedKeyOf(Buffer.from(row.v))!.keyId;
    byKey.set(id, (byKey.get(id) ?? 0) + 1);
  }
  return { byKey, rows };
}

for (const kind of STORE_KINDS) {
  describe(`SIGKILL of the re-seal job (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    it('finding 16: a worker killed midway through re-sealing resumes without losing or double-sealing anything', async () => {
      const merchant = await t.newMerchant({ fundCents: 1_000_000 });
      const customer = await newCustomer(t, merchant);
      const method = await saveCardFor(t, merchant, customer.id);
      const cipher = cardCipherFor(t.service.config);
      const nowMs = t.clock.nowMs();
      await t.service.db.write(async (tx) => {
        for (let i = 0; i < TOKENS; i++) {
          await tx.run(
            `INSERT INTO card_tokens (card_ref, merchant_id, source_id, card_number_enc, card_type, last4, bin, expiry_month, expiry_year, created_at_ms, updated_at_ms)
             VALUES (?, ?, ?, ?, 'Visa', ?, '400000', 12, 2035, ?, ?)`,
            [
              `crash${String(i).padStart(5, '0')}`,
              merchant.merchant_id,
              merchant.source.id,
              cipher.seal(new Secret(numberOf(i)), 'card_number', merchant.source.id),
              numberOf(i).slice(-4),
              nowMs,
              nowMs,
            ],
          );
        }
      });
      const rotated = await rotateCardKey(t.service, { activateNow: true });

      // Rounds 0-4 pass the five columns before card_tokens (one batch each here); 5 and 6 re-seal 400 tokens.
      const killed = await runWorker(t.store.env, 6);
      assert.equal(killed.signal, 'SIGKILL', killed.out);
      const midway = await tokenKeys(t);
      assert.equal(midway.rows.length, TOKENS);
      assert.ok((midway.byKey.get(1) ?? 0) > 0 && (midway.byKey.get(rotated.key_id) ?? 0) > 0, `killed midway: ${JSON.stringify([...midway.byKey])}`);
      const position = (await cardKeysStatus(t.service)).reseal['card_tokens.card_number_enc'];
      assert.match(position ?? '', /after row crash/, 'the job recorded how far it got');

      const resumed = await runWorker(t.store.env, null);
      assert.equal(resumed.code, 0, resumed.out);
      assert.match(resumed.out, /DONE/);
      const done = await tokenKeys(t);
      assert.deepEqual([...done.byKey], [[rotated.key_id, TOKENS]]);
      done.rows.forEach((row, i) => {
        assert.equal(cardCipherFor(t.service.config).open(Buffer.from(row.v), 'card_number', row.source_id).reveal(), numberOf(i), row.card_ref);
      });
      const charged = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 2 });
      assert.equal(charged.statusCode, 200, charged.body);

      t.clock.advance(RING_REFRESH_MS + 1000);
      await retireCardKey(t.service, 1, { forcePins: true });
      const again = await postCharge(t.app, basicOf(merchant), { source: `pm-${method.id}`, amount: 3 });
      assert.equal(again.statusCode, 200, again.body);
    });
  });
}
