// SIGKILL of `payrail serve` while webhook deliveries are under way
// (docs/api-decisions.md section 11: events are never lost and never sent
// for a change that rolled back). Executes fly, some refused inside their
// transaction (an unknown gatewayId, after the transfer row was inserted);
// the server is killed; after a restart every event the store holds reaches
// the receiver at least once, every answered transfer's transfer.created is
// among them, and no refused transfer ever produced an event.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { startServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/stores.ts';
import { transferBody } from '../helpers/transfers.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const CLIENTS = 8;
const ANSWERS_BEFORE_KILL = 60;
const SETTLE_DEADLINE_MS = 60_000;

interface WireEvent {
  id: string;
  type: string;
  data: { id?: string };
}

async function allEvents(url: string, key: string): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  let after = '';
  for (;;) {
    const response = await fetch(`${url}/api/v2/events?limit=100${after}`, { headers: { 'API-KEY': key } });
    assert.equal(response.status, 200);
    const page = (await response.json()) as { data: WireEvent[]; has_more: boolean };
    events.push(...page.data);
    if (!page.has_more) return events;
    after = `&starting_after=${page.data.at(-1)!.id}`;
  }
}

describe('SIGKILL of payrail serve during webhook deliveries (sqlite)', () => {
  const dataDir = tempDir();
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('delivers every committed event at least once after a restart, and none of a rolled-back change', async (context) => {
    const receiver = await startReceiver(() => 200, { delayMs: 20 });
    const first = await startServer({ PAYRAIL_DATA_DIR: dataDir, PAYRAIL_SANDBOX_DELAY_MS: '50' });
    try {
      const key = /transfer API key +(sbx_tk_\S+)/.exec(first.stdout())?.[1];
      assert.ok(key, first.stdout());
      const created = await fetch(`${first.url}/api/v2/webhooks`, {
        method: 'POST',
        headers: { 'API-KEY': key, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url }),
      });
      assert.equal(created.status, 200, await created.clone().text());

      const answered: string[] = [];
      const refused: string[] = [];
      let sent = 0;
      let killed = false;
      const client = async () => {
        for (;;) {
          sent += 1;
          const refuse = sent % 5 === 0;
          const body = refuse ? transferBody({ attribute: [{ name: 'gatewayId', value: '987654321' }] }) : transferBody({ amount: '1.00' });
          try {
            const response = await fetch(`${first.url}/api/transfer`, {
              method: 'POST',
              headers: { 'API-KEY': key, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            await response.json();
            if (response.status === 200) answered.push(body.id);
            else if (refuse) refused.push(body.id);
          } catch {
            return;
          }
          if (answered.length >= ANSWERS_BEFORE_KILL && !killed) {
            killed = true;
            await first.kill();
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
      assert.ok(refused.length > 0, 'some executes were refused inside their transaction');
      const receivedAtKill = receiver.received.length;

      const second = await startServer({ PAYRAIL_DATA_DIR: dataDir, PAYRAIL_SANDBOX_DELAY_MS: '0' });
      try {
        const deadline = Date.now() + SETTLE_DEADLINE_MS;
        for (;;) {
          const stored = await allEvents(second.url, key);
          const receivedIds = new Set(receiver.received.map((r) => (JSON.parse(r.body) as WireEvent).id));
          const missing = stored.filter((event) => !receivedIds.has(event.id));
          const finals = stored.filter((event) => event.type === 'transfer.succeeded' || event.type === 'transfer.failed').length;
          const createdCount = stored.filter((event) => event.type === 'transfer.created').length;
          if (missing.length === 0 && finals === createdCount) {
            context.diagnostic(`${stored.length} events stored, ${receiver.received.length} deliveries received (${receivedAtKill} before the kill)`);
            break;
          }
          assert.ok(Date.now() < deadline, `${missing.length} events not delivered, ${createdCount - finals} transfers not final`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const stored = await allEvents(second.url, key);
        const storedIds = new Set(stored.map((event) => event.id));
        const received = receiver.received.map((r) => JSON.parse(r.body) as WireEvent);
        // Nothing was sent that the store does not hold (no event of a rolled-back change).
        for (const event of received) assert.ok(storedIds.has(event.id), `received ${event.id} exists in the store`);
        const transfersWithEvents = new Set(received.map((event) => event.data.id));
        for (const id of refused) assert.ok(!transfersWithEvents.has(id), `refused transfer ${id} has no event`);
        for (const id of answered) {
          assert.ok(
            received.some((event) => event.type === 'transfer.created' && event.data.id === id),
            `answered transfer ${id} has its transfer.created delivered`,
          );
        }
      } finally {
        assert.equal(await second.stop(), 0);
      }
    } finally {
      await first.kill();
      await receiver.close();
    }
  });
});
