// The CLI of the audit trail and of panel account security, spawned as a
// real process against each store: `payrail audit`, `payrail user
// list|disable|enable|reset-password|end-sessions|reset-two-factor`, and
// `payrail source origins`. Every change is in the trail with actor `cli`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/domain/clock.ts';
import { login } from '../../src/flows/panel/login.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { newAddress } from '../helpers/panel.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const PASSWORD = 'correct horse battery staple';

interface AuditRow {
  action: string;
  actor_kind: string;
  actor_id: string | null;
  target: string | null;
  outcome: string;
  detail: string | null;
  client_address: string | null;
}

for (const kind of STORE_KINDS) {
  describe(`payrail CLI: audit, users, origins (${kind})`, () => {
    let store: TestStore;
    let env: Record<string, string>;
    const signIn = (password: string) => login({ db: store.db, clock: systemClock }, { email: 'ops@example.com', password, address: newAddress() });

    before(async () => {
      store = await createStore(kind);
      env = store.env;
    });
    after(() => store.dispose());

    it('refuses a weak password and creates, lists, disables, enables and resets users', async () => {
      const weak = await runCli(['user', 'create', '--role', 'operator', '--email', 'ops@example.com', '--password', 'password1234'], env);
      assert.equal(weak.code, 1);
      assert.ok(weak.stderr.startsWith('payrail: password is one of the most common passwords; choose another'), weak.stderr);
      await runCliJson(['user', 'create', '--role', 'operator', '--email', 'ops@example.com', '--password', PASSWORD], env);

      const users = await runCliJson<Array<Record<string, unknown>>>(['user', 'list'], env);
      assert.deepEqual(
        users.map((u) => [u.email, u.role, u.disabled_at_ms, u.totp_enrolled_at_ms]),
        [['ops@example.com', 'operator', null, null]],
      );
      assert.ok(!JSON.stringify(users).includes('scrypt'));

      const disabled = await runCli(['user', 'disable', '--email', 'ops@example.com'], env);
      assert.equal(disabled.code, 0, disabled.stderr);
      assert.match(disabled.stdout, /^user ops@example.com \(usr_[0-9A-Za-z]+\) disabled\n$/);
      assert.deepEqual(await signIn(PASSWORD), { ok: false, reason: 'invalid' });
      await runCliJson(['user', 'enable', '--email', 'ops@example.com'], env);
      assert.equal((await signIn(PASSWORD)).ok, true);

      const reset = await runCliJson<{ email: string; password: string; sessions_ended: number }>(
        ['user', 'reset-password', '--email', 'ops@example.com'],
        env,
      );
      assert.equal(reset.sessions_ended, 1);
      assert.equal(reset.password.length >= 12, true);
      assert.deepEqual(await signIn(PASSWORD), { ok: false, reason: 'invalid' });
      assert.equal((await signIn(reset.password)).ok, true);
      assert.deepEqual(await runCliJson(['user', 'end-sessions', '--email', 'ops@example.com'], env), {
        id: users[0]!.id,
        email: 'ops@example.com',
        sessions_ended: 1,
      });
      assert.equal((await runCliJson<{ sessions_ended: number }>(['user', 'reset-two-factor', '--email', 'ops@example.com'], env)).sessions_ended, 0);
      const missing = await runCli(['user', 'disable', '--email', 'ghost@example.com'], env);
      assert.equal(missing.code, 1);
      assert.ok(missing.stderr.startsWith('payrail: no user with email ghost@example.com'), missing.stderr);
    });

    it('manages the page origins of a source', async () => {
      const merchant = await runCliJson<{ merchant_id: string; source: { id: string } }>(['merchant', 'create', '--name', 'Origins shop'], env);
      const at = ['source', 'origins', '--merchant', merchant.merchant_id, '--source', merchant.source.id];
      assert.deepEqual(await runCliJson([...at, '--list'], env), { source: merchant.source.id, origins: [] });
      assert.deepEqual(await runCliJson([...at, '--add', 'https://shop.example'], env), { source: merchant.source.id, origins: ['https://shop.example'] });
      const text = await runCli([...at], env);
      assert.equal(text.stdout, `${merchant.source.id}  https://shop.example\n`);
      const bad = await runCli([...at, '--add', 'https://shop.example/checkout'], env);
      assert.equal(bad.code, 1);
      assert.ok(bad.stderr.startsWith('payrail: origin must be a bare http(s) origin such as https://shop.example (no path)'), bad.stderr);
      assert.deepEqual(await runCliJson([...at, '--remove', 'https://shop.example'], env), { source: merchant.source.id, origins: [] });
    });

    it('prints the audit trail, filtered, with the CLI as actor', async () => {
      const rows = await runCliJson<AuditRow[]>(['audit'], env);
      const actions = rows.map((r) => r.action);
      for (const action of ['user.create', 'user.disable', 'user.enable', 'user.reset_password', 'user.end_sessions', 'user.reset_totp', 'merchant.create']) {
        assert.ok(actions.includes(action), action);
      }
      for (const action of ['source.origin_add', 'source.origin_remove']) assert.ok(actions.includes(action), action);
      const cliRows = rows.filter((r) => r.action.startsWith('user.') || r.action.startsWith('source.') || r.action === 'merchant.create');
      assert.ok(cliRows.every((r) => r.actor_kind === 'cli' && r.client_address === null));
      // A refused command is there with its outcome.
      assert.ok(rows.some((r) => r.action === 'user.disable' && r.outcome === 'failure' && r.target === 'ghost@example.com'));
      // Sign-ins through the flow, successful or not, too.
      assert.ok(rows.some((r) => r.action === 'panel.sign_in' && r.outcome === 'denied' && r.detail === 'user disabled'));

      const disables = await runCliJson<AuditRow[]>(['audit', '--action', 'user.disable'], env);
      assert.deepEqual(
        disables.map((r) => [r.action, r.outcome]),
        [
          ['user.disable', 'failure'],
          ['user.disable', 'success'],
        ],
      );
      assert.deepEqual(await runCliJson(['audit', '--since', '2999-01-01'], env), []);
      const text = await runCli(['audit', '--action', 'user.enable'], env);
      assert.match(text.stdout, /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}success {2}user\.enable +cli(:\S+)? {2}target=usr_\S+ {2}\(ops@example\.com\)\n$/);
      const bad = await runCli(['audit', '--action', 'drop'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^payrail: --action must be one of panel\.sign_in, /);
      assert.equal((await runCli(['audit', '--since', 'yesterday'], env)).code, 1);
    });
  });
}
