// POST /api/v2/transactions/verify (docs/api-decisions.md sections 10 and 14):
// a zero-amount card check with a nonce. The issuer's AVS and CVV results,
// no money, nothing kept beyond the record. Same steps as a charge: reserve
// the key and take the nonce, writing the verification as pending (with the
// card number sealed for recovery); ask the processor outside any
// transaction; record the answer and erase the card number. An unanswered
// call leaves it pending, and the worker asks again with the same reference.
import type { Logger } from 'pino';
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import type { CardType } from '../../domain/cards.ts';
import { CHARGE_DECLINES, type ChargeDeclineCode } from '../../domain/card-results.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ProviderKeys } from '../../domain/provider-keys.ts';
import { checkExpiry } from '../../domain/cards.ts';
import { NONCE_PATTERN } from '../../domain/nonce.ts';
import type { Secret } from '../../domain/secret.ts';
import { fail } from '../../errors.ts';
import {
  CARD_PROCESSOR_TIMEOUT_MS,
  type CardProcessor,
  processorTimeoutMs,
  type VerificationResult,
  verifyWithDeadline,
} from '../../providers/card-processor.ts';
import type { Service } from '../../service.ts';
import { hashNonce } from '../../domain/nonce.ts';
import {
  claimDueVerificationsBatch,
  readTransaction,
  readVerificationHoldingKey,
  recordVerificationAnswer,
  reserveVerification,
} from '../../store/payin/verification.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import { errorSummary } from './charge.ts';
import { type ChargeRequest, type Payer, storedRequest } from './charge-request.ts';
import { dialectOf, renderCharge } from './charge-answers.ts';
import { answerUnknownOutcome, checkIdempotencyKey, OPERATION_RECOVERY_AFTER_MS } from './operation-common.ts';
import {
  IDEMPOTENCY_KEY_TTL_MS,
  IDEMPOTENCY_WAIT_MARGIN_MS,
  type KeyedRequest,
  keyedRequest,
  type Reply,
  replayKey,
  RunningRequests,
} from '../common/idempotency-replay.ts';
import { checkOffered, checkSpecBilling } from './charge-rules.ts';
import { failNonce } from './nonce-use.ts';
import { checkCardOrSource, keyedBodyOf, withCardAsNonce } from './raw-card.ts';
import { newCardRef } from '../../domain/card-refs.ts';
import { verificationReference } from '../common/provider-references.ts';
import { credentialOnFileOf, networkTransactionIdOf } from '../../domain/stored-credential.ts';

export interface VerifyDeps {
  readonly db: Service['db'];
  readonly clock: Clock;
  readonly log: Logger;
  readonly processor: CardProcessor;
  /** This installation's provider keys (the verification's reference). */
  readonly providerKeys: ProviderKeys;
  readonly cipher: CardCipher;
}

/** What a verification gets from the service. */
export function verifyDepsOf(service: Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'config' | 'providerKeys'>): VerifyDeps {
  const { db, clock, log, providerKeys } = service;
  return { db, clock, log, processor: service.providers.cardProcessor, providerKeys, cipher: cardCipherFor(service.config) };
}

/** The charge body without amount (and without capture); billing_info is optional (accept.blue's verify asks for none). */
export type VerifyRequest = Omit<ChargeRequest, 'amount' | 'capture' | 'expiry_month' | 'expiry_year'> & {
  readonly expiry_month: number;
  readonly expiry_year: number;
};

/** A verify request whose card was turned into a nonce (raw-card.ts). */
type NonceVerifyRequest = Omit<VerifyRequest, 'card' | 'cvv2'> & { readonly source: string };

type Idem = KeyedRequest | null;
type Step = { kind: 'taken' } | { kind: 'reserved'; row: TransactionRow; number: Secret<string>; cvv: Secret<string> | null };

/** Verifications handled per worker batch. */
export const VERIFY_BATCH_MAX = 50;
const CLAIM_LEASE_MS = 2 * CARD_PROCESSOR_TIMEOUT_MS;

// In the dialect the verification was asked in (kept with its request).
const render = (row: TransactionRow): string => JSON.stringify(renderCharge(row, [], dialectOf(row)));

/** Reserves the key, takes the nonce and writes the verification as pending, in one write transaction. */
async function reserve(deps: VerifyDeps, payer: Payer, request: NonceVerifyRequest, idem: Idem): Promise<Step> {
  const step = await reserveVerification(deps.db, {
    clock: deps.clock,
    key: idem === null ? null : { sourceId: payer.sourceId, idemKey: idem.key, requestHash: idem.requestHash, ttlMs: IDEMPOTENCY_KEY_TTL_MS },
    payer,
    nonce: { text: request.source, hash: hashNonce(request.source), expiryMonth: request.expiry_month, expiryYear: request.expiry_year },
    keys: deps.cipher,
    pendingOf: (nonce, number, nowMs) => {
      // One seal for the recovery copy and the copy an approved verification keeps for later `ref-` charges.
      const sealedNumber = deps.cipher.seal(number, 'card_number', payer.sourceId);
      return {
        merchant_id: payer.merchantId,
        source_id: payer.sourceId,
        card_type: nonce.card_type,
        last4: nonce.last4,
        bin: nonce.bin,
        expiry_month: request.expiry_month,
        expiry_year: request.expiry_year,
        // Its own copy for recovery, under the card-data key; erased once answered.
        card_number_enc: sealedNumber,
        // The card a later `ref-<reference_number>` charge uses (radicalloop's authorize, then capture); erased
        // unless approved, and after 13 months: a verification is a card-on-file check (domain/reference-card-retention.ts).
        ref_card_enc: sealedNumber,
        // save_card: an approval issues a saved-card token (docs/acceptblue-compatibility.md).
        save_card_ref: request.save_card === true ? newCardRef() : null,
        request_json: JSON.stringify(storedRequest(request, undefined, { wireDialect: payer.wireDialect ?? 'spec' })),
        idem_key: idem?.key ?? null,
        recover_at_ms: nowMs + OPERATION_RECOVERY_AFTER_MS,
        created_at_ms: nowMs,
      };
    },
  });
  if (step.kind === 'refused') failNonce(step);
  return step;
}

/** Records the answer (once) with the reply its key keeps; null when recorded already. */
async function record(
  deps: Pick<VerifyDeps, 'db' | 'clock'>,
  row: Pick<TransactionRow, 'pk' | 'merchant_id' | 'source_id' | 'idem_key' | 'save_card_ref'>,
  result: VerificationResult,
) {
  if (result.processorRef === '') throw new Error('card processor answered a verify without a processor reference');
  const code: ChargeDeclineCode | null =
    result.outcome === 'approved' ? null : (result.decline ?? (result.outcome === 'failed' ? 'processor_error' : 'card_declined'));
  const outcome = {
    status: result.outcome,
    avs_result_code: result.avsResultCode,
    cvv_result_code: result.cvvResultCode,
    error_code: code,
    error_message: code === null ? null : CHARGE_DECLINES[code],
    processor_ref: result.processorRef,
    network_transaction_id: result.outcome === 'approved' ? networkTransactionIdOf(result.networkTransactionId) : null,
  };
  return recordVerificationAnswer(deps.db, { row, outcome, clock: deps.clock, render });
}

function cardOf(keys: ProviderKeys, row: TransactionRow, number: Secret<string>, cvv: Secret<string> | null) {
  const billing = (JSON.parse(row.request_json) as { billing_info: { street: string; zip: string; country: string } }).billing_info;
  return {
    reference: verificationReference(keys, row.pk),
    currency: 'USD' as const,
    card: { number, cvv, expiryMonth: row.expiry_month, expiryYear: row.expiry_year, cardType: row.card_type as CardType },
    billing: { street: billing.street, zip: billing.zip, country: billing.country },
    ...storedCredentialOf(row),
  };
}

/** A verification with save_card keeps the card (a token): flagged as the first use of a kept card (domain/stored-credential.ts). */
function storedCredentialOf(row: Pick<TransactionRow, 'save_card_ref'>) {
  const credential = credentialOnFileOf({ source: 'nonce', saveCard: row.save_card_ref !== null, scheduleRun: false, networkTransactionId: null });
  return credential === null ? {} : { storedCredential: credential };
}

async function verifyOnce(deps: VerifyDeps, payer: Payer, request: NonceVerifyRequest, idem: Idem): Promise<Reply> {
  const step = await reserve(deps, payer, request, idem);
  if (step.kind === 'taken') {
    const current = async (reservedAtMs: number): Promise<Reply> => {
      const key = { merchantId: payer.merchantId, sourceId: payer.sourceId, idemKey: idem!.key, reservedAtMs };
      const found = await readVerificationHoldingKey(deps.db, key);
      if (found === undefined) fail('internal_server_error', 'the verification holding this Idempotency-Key could not be read; retry');
      return { statusCode: 200, json: render(found) };
    };
    return replayKey(deps, payer.sourceId, idem!, processorTimeoutMs(deps.processor) + IDEMPOTENCY_WAIT_MARGIN_MS, current);
  }
  let result: VerificationResult;
  try {
    result = await verifyWithDeadline(deps.processor, cardOf(deps.providerKeys, step.row, step.number, step.cvv));
  } catch (error) {
    return answerUnknownOutcome(
      deps,
      { pk: step.row.pk, operation: 'verify', sourceId: payer.sourceId, idemKey: idem?.key ?? null, pendingJson: render(step.row) },
      error,
    );
  }
  const json = await record(deps, step.row, result);
  if (json !== null) return { statusCode: 200, json };
  return { statusCode: 200, json: render((await readTransaction(deps.db, { pk: step.row.pk, merchantId: payer.merchantId }))!) };
}

export function createVerifyFlow(deps: VerifyDeps): { verify(payer: Payer, input: { request: VerifyRequest; idempotencyKey: string | null }): Promise<Reply> } {
  const running = new RunningRequests();
  return {
    async verify(payer, input) {
      const asked = input.request;
      checkOffered(asked);
      // The spec dialect keeps the interface spec's billing address; an accept.blue caller may leave it out.
      if (payer.wireDialect !== 'acceptblue') {
        if (asked.billing_info === undefined) fail('invalid_request', 'billing_info is required');
        checkSpecBilling(asked.billing_info);
      }
      checkIdempotencyKey(input.idempotencyKey);
      checkCardOrSource(input.request);
      const expiryProblem = checkExpiry(input.request.expiry_month, input.request.expiry_year, deps.clock.nowMs());
      if (expiryProblem !== null) fail('invalid_card', expiryProblem);
      if (input.request.source !== undefined && !NONCE_PATTERN.test(input.request.source)) fail('invalid_nonce', 'source is not a nonce from tokenization');
      // A card sent as such is verified as a nonce of it (raw-card.ts).
      const request = await withCardAsNonce(deps, payer, input.request);
      if (input.idempotencyKey === null) return verifyOnce(deps, payer, request, null);
      const idem = keyedRequest(input.idempotencyKey, 'verify', keyedBodyOf(deps.cipher, payer.merchantId, input.request));
      return running.run(`${payer.sourceId}\n${idem.key}`, idem.requestHash, () => verifyOnce(deps, payer, request, idem));
    },
  };
}

/** The worker's dependencies, from the assembled service (the card-data key is loaded only when needed). */
export function verifyRecoveryDepsOf(service: Service): Omit<VerifyDeps, 'cipher'> & { cipher: () => CardCipher } {
  const { db, clock, log, providerKeys } = service;
  return { db, clock, log, processor: service.providers.cardProcessor, providerKeys, cipher: () => cardCipherFor(service.config) };
}

/** The worker: asks again about verifications whose request never recorded an answer; returns how many were claimed. */
export async function resolveDueVerifications(deps: Omit<VerifyDeps, 'cipher'> & { cipher: () => CardCipher }, limit = VERIFY_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const due = await claimDueVerificationsBatch(deps.db, { nowMs, leaseUntilMs: nowMs + CLAIM_LEASE_MS, limit });
  await Promise.all(
    due.map(async (v) => {
      const row = await readTransaction(deps.db, { pk: v.pk, merchantId: v.merchant_id });
      if (row === undefined) return;
      const number = deps.cipher().open(v.card_number_enc, 'card_number', v.source_id);
      let result: VerificationResult;
      try {
        // The security code is not kept; the processor knows this reference.
        result = await verifyWithDeadline(deps.processor, cardOf(deps.providerKeys, row, number, null));
      } catch (error) {
        deps.log.warn(
          { transaction: v.pk, processor: deps.processor.name, err: errorSummary(error) },
          'card processor did not answer about a verify; will ask again',
        );
        return;
      }
      await record(deps, row, result);
    }),
  );
  return due.length;
}
