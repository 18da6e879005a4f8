// Merchant administration: creation with its ledger accounts and first
// credentials, top-ups, overdraft, the link-required flag, sources and keys.
// Each function is one write transaction.
import type { Environment } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import { issueKey, issuePin } from '../domain/credentials.ts';
import { newMerchantId, newSourceId, randomBase62 } from '../domain/ids.ts';
import { MERCHANT_ACCOUNT_KINDS, merchantAccount, OPERATOR_FUNDING_ACCOUNT } from '../domain/ledger.ts';
import { fail } from '../errors.ts';
import type { Db, Tx } from '../store/db.ts';
import { createAccount, getAccount, post } from '../store/ledger.ts';
import * as merchants from '../store/merchants.ts';

export interface AdminDeps {
  readonly db: Db;
  readonly environment: Environment;
  readonly clock: Clock;
}

export interface SourceCredentials {
  readonly id: string;
  readonly api_key: string;
  readonly pin: string;
  readonly tokenization_token: string;
}

export interface CreatedMerchant {
  readonly merchant_id: string;
  readonly transfer_api_key: string;
  readonly source: SourceCredentials;
}

export const MERCHANT_NAME_LENGTH_MAX = 200;

export async function createMerchant(deps: AdminDeps, input: { name: string }): Promise<CreatedMerchant> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > MERCHANT_NAME_LENGTH_MAX) {
    fail('invalid_request', `name must be 1 to ${MERCHANT_NAME_LENGTH_MAX} characters`);
  }
  return deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    const merchantId = newMerchantId();
    await merchants.insertMerchant(tx, { id: merchantId, name, payouts_must_link: 0, created_at_ms: nowMs });
    for (const kind of MERCHANT_ACCOUNT_KINDS) {
      // Only the available balance has a floor (minus the overdraft, 0 at first).
      await createAccount(tx, { id: merchantAccount(merchantId, kind), merchantId, kind, floorCents: kind === 'available' ? 0 : null, nowMs });
    }
    const transferKey = await issueTransferKey(tx, deps.environment, merchantId, nowMs);
    const source = await issueSource(tx, deps.environment, merchantId, 'Default source', nowMs);
    return { merchant_id: merchantId, transfer_api_key: transferKey, source };
  });
}

async function issueTransferKey(tx: Tx, environment: Environment, merchantId: string, nowMs: number): Promise<string> {
  const key = issueKey(environment, 'transfer_key');
  await merchants.insertCredential(tx, {
    id: key.id,
    merchant_id: merchantId,
    source_id: null,
    kind: 'transfer_key',
    secret_hash: key.secretHash,
    pin_hash: null,
    created_at_ms: nowMs,
  });
  return key.key;
}

async function issueSourceCredentials(tx: Tx, environment: Environment, merchantId: string, sourceId: string, nowMs: number): Promise<SourceCredentials> {
  const apiKey = issueKey(environment, 'source_key');
  const pin = issuePin(apiKey.id);
  const token = issueKey(environment, 'tokenization_token');
  await merchants.insertCredential(tx, {
    id: apiKey.id,
    merchant_id: merchantId,
    source_id: sourceId,
    kind: 'source_key',
    secret_hash: apiKey.secretHash,
    pin_hash: pin.pinHash,
    created_at_ms: nowMs,
  });
  await merchants.insertCredential(tx, {
    id: token.id,
    merchant_id: merchantId,
    source_id: sourceId,
    kind: 'tokenization_token',
    secret_hash: token.secretHash,
    pin_hash: null,
    created_at_ms: nowMs,
  });
  return { id: sourceId, api_key: apiKey.key, pin: pin.pin, tokenization_token: token.key };
}

async function issueSource(tx: Tx, environment: Environment, merchantId: string, name: string, nowMs: number): Promise<SourceCredentials> {
  const sourceId = newSourceId();
  await merchants.insertSource(tx, { id: sourceId, merchant_id: merchantId, name, created_at_ms: nowMs });
  return issueSourceCredentials(tx, environment, merchantId, sourceId, nowMs);
}

async function requireMerchant(tx: Tx, merchantId: string): Promise<merchants.MerchantRow> {
  const merchant = await merchants.getMerchant(tx, merchantId);
  if (merchant === undefined) fail('not_found', `merchant ${merchantId} not found`);
  return merchant;
}

/** Operator top-up: a posting from the operator's funding account. */
export async function fundMerchant(deps: AdminDeps, input: { merchantId: string; amountCents: number }): Promise<MerchantSummary> {
  return deps.db.write(async (tx) => {
    await requireMerchant(tx, input.merchantId);
    const nowMs = deps.clock.nowMs();
    await createAccount(tx, { id: OPERATOR_FUNDING_ACCOUNT, merchantId: null, kind: 'operator_funding', floorCents: null, nowMs });
    await post(tx, {
      kind: 'merchant.fund',
      debitAccountId: OPERATOR_FUNDING_ACCOUNT,
      creditAccountId: merchantAccount(input.merchantId, 'available'),
      amountCents: input.amountCents,
      merchantId: input.merchantId,
      refId: `fund_${randomBase62(16)}`,
      nowMs,
    });
    return summarize(tx, input.merchantId);
  });
}

export async function setOverdraft(deps: AdminDeps, input: { merchantId: string; overdraftCents: number }): Promise<MerchantSummary> {
  if (!Number.isSafeInteger(input.overdraftCents) || input.overdraftCents < 0) fail('invalid_amount', 'overdraft must be zero or more');
  return deps.db.write(async (tx) => {
    await requireMerchant(tx, input.merchantId);
    const changed = await tx.run('UPDATE accounts SET floor_cents = ? WHERE id = ? AND balance_cents >= ?', [
      -input.overdraftCents,
      merchantAccount(input.merchantId, 'available'),
      -input.overdraftCents,
    ]);
    if (changed.changes !== 1) fail('invalid_amount', 'the balance is already below minus that overdraft; fund the merchant first');
    return summarize(tx, input.merchantId);
  });
}

export async function setPayoutsMustLink(deps: AdminDeps, input: { merchantId: string; on: boolean }): Promise<MerchantSummary> {
  return deps.db.write(async (tx) => {
    await requireMerchant(tx, input.merchantId);
    await merchants.setPayoutsMustLink(tx, input.merchantId, input.on);
    return summarize(tx, input.merchantId);
  });
}

export interface MerchantSummary {
  readonly merchant_id: string;
  readonly name: string;
  readonly payouts_must_link: boolean;
  readonly balance_cents: number;
  readonly overdraft_cents: number;
  readonly available_cents: number;
  readonly in_flight_cents: number;
  readonly paid_out_cents: number;
  readonly card_payins_cents: number;
  readonly sources: Array<{ id: string; name: string; revoked: boolean }>;
}

export async function summarize(tx: Tx, merchantId: string): Promise<MerchantSummary> {
  const merchant = await requireMerchant(tx, merchantId);
  const available = await getAccount(tx, merchantAccount(merchantId, 'available'));
  const inFlight = await getAccount(tx, merchantAccount(merchantId, 'in_flight'));
  const paidOut = await getAccount(tx, merchantAccount(merchantId, 'paid_out'));
  const cardPayins = await getAccount(tx, merchantAccount(merchantId, 'card_payins'));
  if (available === undefined || inFlight === undefined || paidOut === undefined || cardPayins === undefined) {
    throw new Error(`merchant ${merchantId} is missing ledger accounts`);
  }
  const overdraftCents = -(available.floor_cents ?? 0);
  const sources = await merchants.listSources(tx, merchantId);
  return {
    merchant_id: merchant.id,
    name: merchant.name,
    payouts_must_link: merchant.payouts_must_link === 1,
    balance_cents: available.balance_cents,
    overdraft_cents: overdraftCents,
    available_cents: available.balance_cents + overdraftCents,
    in_flight_cents: inFlight.balance_cents,
    paid_out_cents: paidOut.balance_cents,
    // Card payins are debited from this account, so its balance is minus the total.
    card_payins_cents: 0 - cardPayins.balance_cents,
    sources: sources.map((s) => ({ id: s.id, name: s.name, revoked: s.revoked_at_ms !== null })),
  };
}

export async function showMerchant(deps: AdminDeps, merchantId: string): Promise<MerchantSummary> {
  return deps.db.read((tx) => summarize(tx, merchantId));
}

export async function createSource(deps: AdminDeps, input: { merchantId: string; name?: string }): Promise<SourceCredentials> {
  return deps.db.write(async (tx) => {
    await requireMerchant(tx, input.merchantId);
    return issueSource(tx, deps.environment, input.merchantId, input.name ?? 'Source', deps.clock.nowMs());
  });
}

/**
 * New API key, PIN and tokenization token for a source; the old ones fail at
 * once. The source is checked and claimed by one conditional statement, not
 * read first (operations of one PostgreSQL batch interleave). Should a
 * revocation of the source interleave with this anyway, authentication
 * refuses every credential of a revoked source (store/merchants.ts).
 */
export async function rotateSource(deps: AdminDeps, input: { merchantId: string; sourceId: string }): Promise<SourceCredentials> {
  return deps.db.write(async (tx) => {
    if (!(await merchants.lockActiveSource(tx, input.merchantId, input.sourceId))) {
      // Only the error's wording depends on this read; nothing is written after it.
      const source = await merchants.getSource(tx, input.sourceId);
      if (source === undefined || source.merchant_id !== input.merchantId) fail('not_found', `source ${input.sourceId} not found`);
      fail('invalid_request', `source ${input.sourceId} is revoked`);
    }
    const nowMs = deps.clock.nowMs();
    await merchants.revokeCredentialsOfSource(tx, input.sourceId, nowMs);
    return issueSourceCredentials(tx, deps.environment, input.merchantId, input.sourceId, nowMs);
  });
}

export async function revokeSource(deps: AdminDeps, input: { merchantId: string; sourceId: string }): Promise<{ id: string; revoked: true }> {
  return deps.db.write(async (tx) => {
    if (!(await merchants.revokeSource(tx, input.merchantId, input.sourceId, deps.clock.nowMs()))) fail('not_found', `source ${input.sourceId} not found`);
    return { id: input.sourceId, revoked: true as const };
  });
}

export async function rotateTransferKey(deps: AdminDeps, input: { merchantId: string }): Promise<{ merchant_id: string; transfer_api_key: string }> {
  return deps.db.write(async (tx) => {
    if (!(await merchants.lockMerchant(tx, input.merchantId))) fail('not_found', `merchant ${input.merchantId} not found`);
    const nowMs = deps.clock.nowMs();
    await merchants.revokeTransferKeys(tx, input.merchantId, nowMs);
    return { merchant_id: input.merchantId, transfer_api_key: await issueTransferKey(tx, deps.environment, input.merchantId, nowMs) };
  });
}
