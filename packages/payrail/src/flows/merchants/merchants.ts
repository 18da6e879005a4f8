// Merchant administration: creation with its ledger accounts and first
// credentials, top-ups, overdraft, the link-required flag, sources and keys.
// Each function is one write transaction.
import type { KeyObject } from 'node:crypto';
import type { Environment } from '../../config.ts';
import type { AuditAction } from '../../domain/audit.ts';
import type { Clock } from '../../domain/clock.ts';
import { type CredentialKind, type IssuedKey, issueKey, issuePin } from '../../domain/credentials.ts';
import { newMerchantId, newSourceId, randomBase62 } from '../../domain/ids.ts';
import { floorCentsFor, MERCHANT_ACCOUNT_KINDS, merchantAccount, OPERATOR_FUNDING_ACCOUNT, overdraftCentsOf } from '../../domain/ledger.ts';
import { formatCents } from '../../domain/money.ts';
import { pinKeyFor } from '../../crypto/card-key.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { type AuditActor, SYSTEM_ACTOR, writeAudited } from '../operations/audit.ts';
import type { Db, Txn } from '../../store/db.ts';
import { createAccount, getAccount, post, setFloor } from '../../store/ledger.ts';
import * as merchants from '../../store/merchants.ts';

export interface AdminDeps {
  readonly db: Db;
  readonly environment: Environment;
  readonly clock: Clock;
}

/**
 * What issuing PINs needs besides: the HMAC key of PIN hashes, which lives
 * with the card-data key, never in the database (issuingDeps builds it).
 */
export interface IssuingDeps extends AdminDeps {
  readonly pinKey: KeyObject;
}

/** The deps of the functions that issue source credentials, from the assembled service. */
export function issuingDeps(service: Pick<Service, 'db' | 'config' | 'clock'>): IssuingDeps {
  const config = service.config;
  return {
    db: service.db,
    environment: config.environment,
    clock: service.clock,
    // Loaded when a PIN is issued, so commands that issue none need no card-data key.
    get pinKey() {
      return pinKeyFor(config);
    },
  };
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

/** A merchant's name, trimmed; refused when empty or too long. */
export function merchantNameOf(text: string): string {
  const name = text.trim();
  if (name.length === 0 || name.length > MERCHANT_NAME_LENGTH_MAX) {
    fail('invalid_request', `name must be 1 to ${MERCHANT_NAME_LENGTH_MAX} characters`);
  }
  return name;
}

/** A new merchant's row and ledger accounts, in a transaction the caller holds; returns its id. */
export async function insertMerchantWithAccounts(tx: Txn, name: string, nowMs: number): Promise<string> {
  const merchantId = newMerchantId();
  await merchants.insertMerchant(tx, { id: merchantId, name, payouts_must_link: 0, created_at_ms: nowMs });
  for (const kind of MERCHANT_ACCOUNT_KINDS) {
    // Only the available balance has a floor (minus the overdraft, 0 at first).
    await createAccount(tx, { id: merchantAccount(merchantId, kind), merchantId, kind, floorCents: kind === 'available' ? 0 : null, nowMs });
  }
  return merchantId;
}

export async function createMerchant(deps: IssuingDeps, input: { name: string }, by: AuditActor = SYSTEM_ACTOR): Promise<CreatedMerchant> {
  const name = merchantNameOf(input.name);
  const event = { action: 'merchant.create', target: null, detail: `name ${name}` } as const;
  const describe = (created: CreatedMerchant) => ({ target: created.merchant_id, merchantId: created.merchant_id });
  return writeAudited(
    deps,
    by,
    event,
    async (tx) => {
      const nowMs = deps.clock.nowMs();
      const merchantId = await insertMerchantWithAccounts(tx, name, nowMs);
      return { merchant_id: merchantId, ...(await issueStarterCredentials(tx, deps, merchantId, null, nowMs)) };
    },
    describe,
  );
}

/**
 * A merchant's first transfer API key and source credentials, in a
 * transaction the caller holds. With `sourceId` the credentials go to that
 * existing source (made earlier without any, for a one-time credentials
 * link); without, a "Default source" is made.
 */
export async function issueStarterCredentials(
  tx: Txn,
  issuer: Issuer,
  merchantId: string,
  sourceId: string | null,
  nowMs: number,
): Promise<{ transfer_api_key: string; source: SourceCredentials }> {
  const transferKey = await issueTransferKey(tx, issuer.environment, merchantId, nowMs);
  const source =
    sourceId === null
      ? await issueSource(tx, issuer, merchantId, 'Default source', nowMs)
      : await issueSourceCredentials(tx, issuer, merchantId, sourceId, nowMs);
  return { transfer_api_key: transferKey, source };
}

/** A source with no credentials yet (they are issued when its one-time credentials link is used). */
export async function insertBareSource(tx: Txn, merchantId: string, name: string, nowMs: number): Promise<string> {
  const sourceId = newSourceId();
  await merchants.insertSource(tx, { id: sourceId, merchant_id: merchantId, name, created_at_ms: nowMs });
  return sourceId;
}

/** A posting from the operator's funding account to a merchant, in a transaction the caller holds. */
export async function fundInTx(tx: Txn, merchantId: string, amountCents: number, nowMs: number): Promise<void> {
  await createAccount(tx, { id: OPERATOR_FUNDING_ACCOUNT, merchantId: null, kind: 'operator_funding', floorCents: null, nowMs });
  await post(tx, {
    kind: 'merchant.fund',
    debitAccountId: OPERATOR_FUNDING_ACCOUNT,
    creditAccountId: merchantAccount(merchantId, 'available'),
    amountCents,
    merchantId,
    refId: `fund_${randomBase62(16)}`,
    nowMs,
  });
}

/** The owner of a credential and when it is issued; a transfer key has no source. */
interface CredentialOwner {
  readonly merchantId: string;
  readonly sourceId: string | null;
  readonly nowMs: number;
}

async function storeCredential(tx: Txn, owner: CredentialOwner, kind: CredentialKind, key: IssuedKey, pinHash: string | null = null): Promise<void> {
  await merchants.insertCredential(tx, {
    id: key.id,
    merchant_id: owner.merchantId,
    source_id: owner.sourceId,
    kind,
    environment: key.environment,
    secret_hash: key.secretHash,
    pin_hash: pinHash,
    created_at_ms: owner.nowMs,
  });
}

async function issueTransferKey(tx: Txn, environment: Environment, merchantId: string, nowMs: number): Promise<string> {
  const key = issueKey(environment, 'transfer_key');
  await storeCredential(tx, { merchantId, sourceId: null, nowMs }, 'transfer_key', key);
  return key.key;
}

/** What issuing a source's credentials needs: their environment and the HMAC key of PIN hashes. */
type Issuer = Pick<IssuingDeps, 'environment' | 'pinKey'>;

async function issueSourceCredentials(tx: Txn, issuer: Issuer, merchantId: string, sourceId: string, nowMs: number): Promise<SourceCredentials> {
  const owner = { merchantId, sourceId, nowMs };
  const apiKey = issueKey(issuer.environment, 'source_key');
  const pin = issuePin(issuer.pinKey, apiKey.id);
  const token = issueKey(issuer.environment, 'tokenization_token');
  await storeCredential(tx, owner, 'source_key', apiKey, pin.pinHash);
  await storeCredential(tx, owner, 'tokenization_token', token);
  return { id: sourceId, api_key: apiKey.key, pin: pin.pin, tokenization_token: token.key };
}

async function issueSource(tx: Txn, issuer: Issuer, merchantId: string, name: string, nowMs: number): Promise<SourceCredentials> {
  const sourceId = newSourceId();
  await merchants.insertSource(tx, { id: sourceId, merchant_id: merchantId, name, created_at_ms: nowMs });
  return issueSourceCredentials(tx, issuer, merchantId, sourceId, nowMs);
}

async function requireMerchant(tx: Txn, merchantId: string): Promise<merchants.MerchantRow> {
  const merchant = await merchants.getMerchant(tx, merchantId);
  if (merchant === undefined) fail('not_found', `merchant ${merchantId} not found`);
  return merchant;
}

/** An audited change of an existing merchant, answered with its summary. */
async function changeMerchant(
  deps: AdminDeps,
  by: AuditActor,
  merchantId: string,
  what: { action: AuditAction; detail: string },
  change: (tx: Txn) => Promise<unknown>,
): Promise<MerchantSummary> {
  const event = { action: what.action, target: merchantId, merchantId, detail: what.detail };
  return writeAudited(deps, by, event, async (tx) => {
    await requireMerchant(tx, merchantId);
    await change(tx);
    return summarize(tx, merchantId);
  });
}

/** Operator top-up: a posting from the operator's funding account. */
export async function fundMerchant(
  deps: AdminDeps,
  input: { merchantId: string; amountCents: number },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<MerchantSummary> {
  const detail = `amount ${formatCents(input.amountCents)} USD`;
  return changeMerchant(deps, by, input.merchantId, { action: 'merchant.fund', detail }, (tx) =>
    fundInTx(tx, input.merchantId, input.amountCents, deps.clock.nowMs()),
  );
}

export async function setOverdraft(
  deps: AdminDeps,
  input: { merchantId: string; overdraftCents: number },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<MerchantSummary> {
  if (!Number.isSafeInteger(input.overdraftCents) || input.overdraftCents < 0) fail('invalid_amount', 'overdraft must be zero or more');
  const detail = `overdraft ${formatCents(input.overdraftCents)} USD`;
  return changeMerchant(deps, by, input.merchantId, { action: 'merchant.overdraft', detail }, async (tx) => {
    const changed = await setFloor(tx, merchantAccount(input.merchantId, 'available'), floorCentsFor(input.overdraftCents));
    if (!changed) fail('invalid_amount', 'the balance is already below minus that overdraft; fund the merchant first');
  });
}

export async function setPayoutsMustLink(deps: AdminDeps, input: { merchantId: string; on: boolean }, by: AuditActor = SYSTEM_ACTOR): Promise<MerchantSummary> {
  return changeMerchant(deps, by, input.merchantId, { action: 'merchant.link_required', detail: input.on ? 'on' : 'off' }, (tx) =>
    merchants.setPayoutsMustLink(tx, input.merchantId, input.on),
  );
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

export async function summarize(tx: Txn, merchantId: string): Promise<MerchantSummary> {
  const merchant = await requireMerchant(tx, merchantId);
  const available = await getAccount(tx, merchantAccount(merchantId, 'available'));
  const inFlight = await getAccount(tx, merchantAccount(merchantId, 'in_flight'));
  const paidOut = await getAccount(tx, merchantAccount(merchantId, 'paid_out'));
  const cardPayins = await getAccount(tx, merchantAccount(merchantId, 'card_payins'));
  if (available === undefined || inFlight === undefined || paidOut === undefined || cardPayins === undefined) {
    throw new Error(`merchant ${merchantId} is missing ledger accounts`);
  }
  const overdraftCents = overdraftCentsOf(available.floor_cents);
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

/** The transfer API's balance: the available balance and the overdraft, in cents. */
export async function merchantBalance(deps: Pick<AdminDeps, 'db'>, merchantId: string): Promise<{ balanceCents: number; overdraftCents: number }> {
  const account = await deps.db.read((tx) => getAccount(tx, merchantAccount(merchantId, 'available')));
  if (account === undefined) throw new Error(`merchant ${merchantId} has no available account`);
  return { balanceCents: Number(account.balance_cents), overdraftCents: overdraftCentsOf(account.floor_cents) };
}

export async function showMerchant(deps: AdminDeps, merchantId: string): Promise<MerchantSummary> {
  return deps.db.read((tx) => summarize(tx, merchantId));
}

export async function createSource(deps: IssuingDeps, input: { merchantId: string; name?: string }, by: AuditActor = SYSTEM_ACTOR): Promise<SourceCredentials> {
  const event = { action: 'source.create', target: null, merchantId: input.merchantId } as const;
  return writeAudited(
    deps,
    by,
    event,
    async (tx) => {
      await requireMerchant(tx, input.merchantId);
      return issueSource(tx, deps, input.merchantId, input.name ?? 'Source', deps.clock.nowMs());
    },
    (created) => ({ target: created.id }),
  );
}

/**
 * New API key, PIN and tokenization token for a source; the old ones fail at
 * once. The source is checked and claimed by one conditional statement, not
 * read first (operations of one PostgreSQL batch interleave). Should a
 * revocation of the source interleave with this anyway, authentication
 * refuses every credential of a revoked source (store/merchants.ts).
 */
export async function rotateSource(
  deps: IssuingDeps,
  input: { merchantId: string; sourceId: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<SourceCredentials> {
  const event = { action: 'source.rotate', target: input.sourceId, merchantId: input.merchantId } as const;
  return writeAudited(deps, by, event, async (tx) => {
    if (!(await merchants.lockActiveSource(tx, input.merchantId, input.sourceId))) {
      // Only the error's wording depends on this read; nothing is written after it.
      const source = await merchants.getSource(tx, input.sourceId);
      if (source === undefined || source.merchant_id !== input.merchantId) fail('not_found', `source ${input.sourceId} not found`);
      fail('invalid_request', `source ${input.sourceId} is revoked`);
    }
    const nowMs = deps.clock.nowMs();
    await merchants.revokeCredentialsOfSource(tx, input.sourceId, nowMs);
    return issueSourceCredentials(tx, deps, input.merchantId, input.sourceId, nowMs);
  });
}

export async function revokeSource(
  deps: AdminDeps,
  input: { merchantId: string; sourceId: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<{ id: string; revoked: true }> {
  const event = { action: 'source.revoke', target: input.sourceId, merchantId: input.merchantId } as const;
  return writeAudited(deps, by, event, async (tx) => {
    if (!(await merchants.revokeSource(tx, input.merchantId, input.sourceId, deps.clock.nowMs()))) fail('not_found', `source ${input.sourceId} not found`);
    return { id: input.sourceId, revoked: true as const };
  });
}

export async function rotateTransferKey(
  deps: AdminDeps,
  input: { merchantId: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<{ merchant_id: string; transfer_api_key: string }> {
  const event = { action: 'transfer_key.rotate', target: input.merchantId, merchantId: input.merchantId } as const;
  return writeAudited(deps, by, event, async (tx) => {
    if (!(await merchants.lockMerchant(tx, input.merchantId))) fail('not_found', `merchant ${input.merchantId} not found`);
    const nowMs = deps.clock.nowMs();
    await merchants.revokeTransferKeys(tx, input.merchantId, nowMs);
    return { merchant_id: input.merchantId, transfer_api_key: await issueTransferKey(tx, deps.environment, input.merchantId, nowMs) };
  });
}
