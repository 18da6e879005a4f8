// A crash at any point leaves nothing half-done: `payrail serve` on the
// embedded store is killed with SIGKILL while executes are in flight and
// the worker is moving transfers; after a restart every transfer that was
// answered 200 exists, every transfer reaches a final state, and
// `payrail ledger verify` passes (before and after the restart).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCliJson } from '../helpers/cli.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/stores.ts';
import { transferBody } from '../helpers/transfers.ts';

/** Clients firing executes at once. */
const CLIENTS = 16;
/** Answers to wait for before the kill; more requests are still in flight then. */
const ANSWERS_BEFORE_KILL = 120;
/** Bound on the wait for the restarted server's worker to finish every transfer. */
const SETTLE_DEADLINE_MS = 60_000;

interface StatusReply {
  payment_response?: { state: string };
  status?: { result: { state: number; final: number } };
}

async function statusOf(server: RunningServer, key: string, id: string): Promise<StatusReply> {
  const response = await fetch(`${server.url}/api/status/${id}`, { headers: { 'API-KEY': key } });
  assert.equal(response.status, 200);
  return (await response.json()) as StatusReply;
}

describe('SIGKILL of payrail serve mid-flight (sqlite)', () => {
  const dataDir = tempDir();
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('loses no answered transfer, finishes the in-flight ones, and keeps the ledger exact', async (context) => {
    // A sandbox step of 200 ms keeps transfers at the network (state 40) when the kill comes.
    const first = await startServer({ PAYRAIL_DATA_DIR: dataDir, PAYRAIL_SANDBOX_DELAY_MS: '200' });
    const key = /transfer API key +(sbx_tk_\S+)/.exec(first.stdout())?.[1];
    assert.ok(key, first.stdout());

    const sent: string[] = [];
    const answered: string[] = [];
    let killed = false;
    // Every client keeps sending until its connection dies with the server, so
    // each one has an execute on the wire at the kill, whatever the timing.
    const client = async () => {
      for (;;) {
        const body = transferBody({ amount: '1.00', lastFour: sent.length % 7 === 0 ? '0004' : '5678' });
        sent.push(body.id);
        try {
          const response = await fetch(`${first.url}/api/transfer`, {
            method: 'POST',
            headers: { 'API-KEY': key, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const reply = (await response.json()) as { payment_response?: { state: string } };
          if (response.status === 200) {
            assert.equal(reply.payment_response?.state, '0');
            answered.push(body.id);
          }
        } catch {
          // The connection died with the server: this one may or may not exist.
          return;
        }
        if (answered.length >= ANSWERS_BEFORE_KILL && !killed) {
          killed = true;
          await first.kill();
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    assert.ok(answered.length >= ANSWERS_BEFORE_KILL);
    assert.ok(sent.length >= answered.length + CLIENTS, 'every client had an execute unanswered at the kill');

    // Straight after the crash, before anything repairs it, the store is consistent.
    const crashed = await runCliJson<{ ok: boolean; problems: string[] }>(['ledger', 'verify'], { PAYRAIL_DATA_DIR: dataDir });
    assert.deepEqual(crashed.problems, []);
    const inFlight = await runCliJson<{ in_flight_cents: number; merchant_id: string }>(['merchant', 'show', '--merchant', await demoMerchant(dataDir)], {
      PAYRAIL_DATA_DIR: dataDir,
    });
    assert.ok(inFlight.in_flight_cents > 0, 'transfers were still in flight at the kill');
    context.diagnostic(`${sent.length} executes sent, ${answered.length} answered 200, ${inFlight.in_flight_cents} cents in flight at the kill`);

    const second = await startServer({ PAYRAIL_DATA_DIR: dataDir, PAYRAIL_SANDBOX_DELAY_MS: '0' });
    try {
      for (const id of answered) {
        const reply = await statusOf(second, key, id);
        assert.ok(reply.status !== undefined, `answered transfer ${id} exists after the restart`);
      }
      const deadline = Date.now() + SETTLE_DEADLINE_MS;
      let pending = [...sent];
      while (pending.length > 0) {
        const next: string[] = [];
        for (const id of pending) {
          const reply = await statusOf(second, key, id);
          // An unanswered execute either committed (then it exists) or not at all (-2).
          if (reply.payment_response !== undefined) assert.equal(reply.payment_response.state, '-2');
          else if (reply.status!.result.final !== 1) next.push(id);
        }
        pending = next;
        if (pending.length > 0) {
          assert.ok(Date.now() < deadline, `transfers still not final: ${pending.slice(0, 5).join(', ')}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    } finally {
      assert.equal(await second.stop(), 0);
    }
    const verified = await runCliJson<{ ok: boolean; problems: string[] }>(['ledger', 'verify'], { PAYRAIL_DATA_DIR: dataDir });
    assert.deepEqual(verified.problems, []);
    assert.equal(verified.ok, true);
    const shown = await runCliJson<{ in_flight_cents: number }>(['merchant', 'show', '--merchant', await demoMerchant(dataDir)], { PAYRAIL_DATA_DIR: dataDir });
    assert.equal(shown.in_flight_cents, 0);
  });
});

/** The id of the merchant seeded on first start (the only one in this store). */
async function demoMerchant(dataDir: string): Promise<string> {
  const { openMigratedDb } = await import('../../src/store/open.ts');
  const db = await openMigratedDb({ databaseUrl: null, dataDir, pgPoolSize: 2 });
  try {
    const row = await db.read((tx) => tx.get<{ id: string }>('SELECT id FROM merchants'));
    assert.ok(row);
    return row.id;
  } finally {
    await db.close();
  }
}
