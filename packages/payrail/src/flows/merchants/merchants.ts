// Merchant administration: creation with its ledger accounts and first
// credentials, top-ups, overdraft, the link-required flag, sources and keys.
// Keys and PINs are issued here (the PIN key never reaches the store); each
// change is one audited store command (store/merchants/).
import type { Environment } from '../../config.ts';
import type { AuditAction } from '../../domain/audit.ts';
import type { Clock } from '../../domain/clock.ts';
import { issueKey, issuePin, type PinKeys } from '../../domain/credentials.ts';
import { newMerchantId, newSourceId, randomBase62 } from '../../domain/ids.ts';
import { overdraftCentsOf } from '../../domain/ledger.ts';
import { formatCents } from '../../domain/money.ts';
import { DEFAULT_WIRE_DIALECT, isWireDialect, WIRE_DIALECTS, type WireDialect } from '../../domain/wire-dialect.ts';
import { pinKeyFor } from '../../crypto/card-key.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { type AuditActor, audited, SYSTEM_ACTOR } from '../operations/audit.ts';
import type { Db } from '../../store/db.ts';
import { type MerchantChange, changeMerchant as changeMerchantCommand } from '../../store/merchants/change.ts';
import { createMerchantWithCredentials, type Funding } from '../../store/merchants/create.ts';
import type { IssuedSourceKeys, NewSource } from '../../store/merchants/credentials.ts';
import * as sources from '../../store/merchants/sources.ts';
import { availableAccount, type MerchantSummary, merchantSummary } from '../../store/merchants/summary.ts';

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
  readonly pinKey: PinKeys;
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
  /** How the payin API answers this source's key (domain/wire-dialect.ts). */
  readonly dialect: WireDialect;
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

/**
 * A wire dialect as typed by an operator or a merchant (CLI option, form
 * field); absent means the default. Refused with the names it may take.
 */
export function wireDialectOf(text: string | undefined): WireDialect {
  if (text === undefined) return DEFAULT_WIRE_DIALECT;
  const dialect = text.trim();
  if (!isWireDialect(dialect)) fail('invalid_request', `dialect must be ${WIRE_DIALECTS.join(' or ')}, not ${JSON.stringify(text.slice(0, 40))}`);
  return dialect;
}

/** What an audit event of a creation says of the dialect: nothing for the default (events read as before), else `dialect X` after `lead`. */
export function dialectNote(dialect: WireDialect, lead: string): string {
  return dialect === DEFAULT_WIRE_DIALECT ? '' : `${lead}dialect ${dialect}`;
}

/** What issuing a source's credentials needs: their environment and the HMAC key of PIN hashes. */
type Issuer = Pick<IssuingDeps, 'environment' | 'pinKey'>;

/** A source's API key, PIN and tokenization token, issued for the store to keep their hashes and shown once. */
export function issueSourceKeys(issuer: Issuer): { keys: IssuedSourceKeys; pin: string } {
  const apiKey = issueKey(issuer.environment, 'source_key');
  const pin = issuePin(issuer.pinKey, apiKey.id);
  return { keys: { apiKey, pinHash: pin.pinHash, token: issueKey(issuer.environment, 'tokenization_token') }, pin: pin.pin };
}

/** What the answer shows of a source's credentials just issued. */
export function sourceCredentialsOf(sourceId: string, dialect: WireDialect, issued: { keys: IssuedSourceKeys; pin: string }): SourceCredentials {
  return { id: sourceId, dialect, api_key: issued.keys.apiKey.key, pin: issued.pin, tokenization_token: issued.keys.token.key };
}

/** A top-up from the operator's funding account, with a fresh posting reference. */
export function fundingOf(amountCents: number): Funding {
  return { refId: `fund_${randomBase62(16)}`, amountCents };
}

/** A merchant with its transfer key and a first source, whose wire dialect is `dialect` (default spec). */
export async function createMerchant(
  deps: IssuingDeps,
  input: { name: string; dialect?: WireDialect },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<CreatedMerchant> {
  const name = merchantNameOf(input.name);
  const dialect = input.dialect ?? DEFAULT_WIRE_DIALECT;
  const event = { action: 'merchant.create', target: null, detail: `name ${name}${dialectNote(dialect, ', ')}` } as const;
  const merchantId = newMerchantId();
  const transferKey = issueKey(deps.environment, 'transfer_key');
  const issued = issueSourceKeys(deps);
  const source: NewSource = { id: newSourceId(), name: 'Default source', dialect, keys: issued.keys };
  return audited(deps, by, event, async (audit) => {
    await createMerchantWithCredentials(deps.db, { merchantId, name, transferKey, source, nowMs: deps.clock.nowMs(), audit });
    return { merchant_id: merchantId, transfer_api_key: transferKey.key, source: sourceCredentialsOf(source.id, dialect, issued) };
  });
}

/** An audited change of an existing merchant, answered with its summary. */
async function changeMerchant(
  deps: AdminDeps,
  by: AuditActor,
  merchantId: string,
  what: { action: AuditAction; detail: string },
  change: MerchantChange,
): Promise<MerchantSummary> {
  const event = { action: what.action, target: merchantId, merchantId, detail: what.detail };
  return audited(deps, by, event, async (audit) => {
    const changed = await changeMerchantCommand(deps.db, { merchantId, change, nowMs: deps.clock.nowMs(), audit });
    if (changed.kind === 'not_found') fail('not_found', `merchant ${merchantId} not found`);
    if (changed.kind === 'below_floor') fail('invalid_amount', 'the balance is already below minus that overdraft; fund the merchant first');
    return changed.summary;
  });
}

/** Operator top-up: a posting from the operator's funding account. */
export async function fundMerchant(
  deps: AdminDeps,
  input: { merchantId: string; amountCents: number },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<MerchantSummary> {
  const detail = `amount ${formatCents(input.amountCents)} USD`;
  return changeMerchant(deps, by, input.merchantId, { action: 'merchant.fund', detail }, { kind: 'fund', funding: fundingOf(input.amountCents) });
}

export async function setOverdraft(
  deps: AdminDeps,
  input: { merchantId: string; overdraftCents: number },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<MerchantSummary> {
  if (!Number.isSafeInteger(input.overdraftCents) || input.overdraftCents < 0) fail('invalid_amount', 'overdraft must be zero or more');
  const detail = `overdraft ${formatCents(input.overdraftCents)} USD`;
  return changeMerchant(deps, by, input.merchantId, { action: 'merchant.overdraft', detail }, { kind: 'overdraft', overdraftCents: input.overdraftCents });
}

export async function setPayoutsMustLink(deps: AdminDeps, input: { merchantId: string; on: boolean }, by: AuditActor = SYSTEM_ACTOR): Promise<MerchantSummary> {
  return changeMerchant(
    deps,
    by,
    input.merchantId,
    { action: 'merchant.link_required', detail: input.on ? 'on' : 'off' },
    { kind: 'payouts_must_link', on: input.on },
  );
}

/**
 * Whether the merchant's approved charges keep their card for later `ref-`
 * charges for 13 months (accept.blue's reference charges), not only the 24
 * hours any nonce charge keeps it (domain/reference-card-retention.ts).
 * Applies to charges made from then on.
 */
export async function setKeepsReferenceCards(
  deps: AdminDeps,
  input: { merchantId: string; on: boolean },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<MerchantSummary> {
  return changeMerchant(
    deps,
    by,
    input.merchantId,
    { action: 'merchant.reference_cards', detail: input.on ? 'on' : 'off' },
    { kind: 'keeps_reference_cards', on: input.on },
  );
}

export type { MerchantSummary };

/** The transfer API's balance: the available balance and the overdraft, in cents. */
export async function merchantBalance(deps: Pick<AdminDeps, 'db'>, merchantId: string): Promise<{ balanceCents: number; overdraftCents: number }> {
  const account = await availableAccount(deps.db, merchantId);
  if (account === undefined) throw new Error(`merchant ${merchantId} has no available account`);
  return { balanceCents: Number(account.balance_cents), overdraftCents: overdraftCentsOf(account.floor_cents) };
}

export async function showMerchant(deps: AdminDeps, merchantId: string): Promise<MerchantSummary> {
  const summary = await merchantSummary(deps.db, merchantId);
  if (summary === undefined) fail('not_found', `merchant ${merchantId} not found`);
  return summary;
}

export async function createSource(
  deps: IssuingDeps,
  input: { merchantId: string; name?: string; dialect?: WireDialect },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<SourceCredentials> {
  const dialect = input.dialect ?? DEFAULT_WIRE_DIALECT;
  const event = { action: 'source.create', target: null, merchantId: input.merchantId, detail: dialectNote(dialect, '') || null } as const;
  const issued = issueSourceKeys(deps);
  const source: NewSource = { id: newSourceId(), name: input.name ?? 'Source', dialect, keys: issued.keys };
  return audited(deps, by, event, async (audit) => {
    const created = await sources.createSource(deps.db, { merchantId: input.merchantId, source, nowMs: deps.clock.nowMs(), audit });
    if (created.kind === 'not_found') fail('not_found', `merchant ${input.merchantId} not found`);
    return sourceCredentialsOf(source.id, dialect, issued);
  });
}

/** What a dialect setting answers: the source, its merchant, its dialect now and whether this changed it. */
export interface SourceDialect {
  readonly id: string;
  readonly merchant_id: string;
  readonly dialect: WireDialect;
  readonly changed: boolean;
}

/**
 * Sets how the payin API answers a source's key: by the operator for any
 * merchant's source (`merchantId` null), by a merchant's admin in the panel
 * for its own. Effective at the caller's next request.
 */
export async function setSourceDialect(
  deps: AdminDeps,
  input: { sourceId: string; merchantId: string | null; dialect: WireDialect },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<SourceDialect> {
  const event = { action: 'source.dialect', target: input.sourceId, merchantId: input.merchantId, detail: `dialect ${input.dialect}` } as const;
  return audited(deps, by, event, async (audit) => {
    const set = await sources.setSourceDialect(deps.db, { ...input, audit });
    if (set.kind === 'not_found') fail('not_found', `source ${input.sourceId} not found`);
    if (set.kind === 'revoked') fail('invalid_request', `source ${input.sourceId} is revoked`);
    return { id: input.sourceId, merchant_id: set.merchantId, dialect: input.dialect, changed: set.kind === 'changed' };
  });
}

/** New API key, PIN and tokenization token for a source; the old ones fail at once. */
export async function rotateSource(
  deps: IssuingDeps,
  input: { merchantId: string; sourceId: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<SourceCredentials> {
  const event = { action: 'source.rotate', target: input.sourceId, merchantId: input.merchantId } as const;
  const issued = issueSourceKeys(deps);
  return audited(deps, by, event, async (audit) => {
    const rotated = await sources.rotateSourceKeys(deps.db, { ...input, keys: issued.keys, nowMs: deps.clock.nowMs(), audit });
    if (rotated.kind === 'not_found') fail('not_found', `source ${input.sourceId} not found`);
    if (rotated.kind === 'revoked') fail('invalid_request', `source ${input.sourceId} is revoked`);
    return sourceCredentialsOf(input.sourceId, rotated.dialect, issued);
  });
}

export async function revokeSource(
  deps: AdminDeps,
  input: { merchantId: string; sourceId: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<{ id: string; revoked: true }> {
  const event = { action: 'source.revoke', target: input.sourceId, merchantId: input.merchantId } as const;
  return audited(deps, by, event, async (audit) => {
    if (!(await sources.revokeSource(deps.db, { ...input, nowMs: deps.clock.nowMs(), audit }))) fail('not_found', `source ${input.sourceId} not found`);
    return { id: input.sourceId, revoked: true as const };
  });
}

export async function rotateTransferKey(
  deps: AdminDeps,
  input: { merchantId: string },
  by: AuditActor = SYSTEM_ACTOR,
): Promise<{ merchant_id: string; transfer_api_key: string }> {
  const event = { action: 'transfer_key.rotate', target: input.merchantId, merchantId: input.merchantId } as const;
  const key = issueKey(deps.environment, 'transfer_key');
  return audited(deps, by, event, async (audit) => {
    if (!(await sources.rotateTransferKey(deps.db, { merchantId: input.merchantId, key, nowMs: deps.clock.nowMs(), audit }))) {
      fail('not_found', `merchant ${input.merchantId} not found`);
    }
    return { merchant_id: input.merchantId, transfer_api_key: key.key };
  });
}
