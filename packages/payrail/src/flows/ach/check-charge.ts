// A check charge (behaviour.md section 17; accept.blue's CheckCharge and a
// SourceCharge of a saved check method): the charge flow hands it over once
// the request names a bank account or a `pm-` check method. As for a card,
// two write transactions with the network call between them:
//
//   1. reserve the Idempotency-Key and insert the check row ('pending') and
//      its ACH entry ('submitting'): store/ach/check-reservation.ts;
//   2. submit the entry to the ACH network, outside any transaction, with
//      its deadline: check-submit.ts;
//   3. record the answer (accepted: the amount waits in ach_pending until it
//      settles; refused: nothing moved) with the key's reply.
//
// An unanswered submission leaves the entry 'submitting' and answers the
// check as pending; the worker submits it again with the same reference.
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import { fail } from '../../errors.ts';
import type { AchNetwork } from '../../providers/ach-network.ts';
import type { Service } from '../../service.ts';
import { type CheckKeyClaim, type CheckReservation, readCheckTransaction, reserveCheck } from '../../store/ach/check-reservation.ts';
import { markKeyUnanswered, readChargeHoldingKey } from '../../store/payin/charge-reads.ts';
import type { TransactionRow } from '../../store/transactions.ts';
import { IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENCY_WAIT_MARGIN_MS, type KeyedRequest, replayKey, type Reply } from '../common/idempotency-replay.ts';
import { errorSummary } from '../common/error-summary.ts';
import { dialectOf, renderCharge } from '../payin/charge-answers.ts';
import { type ChargeRequest, type Payer, storedRequest } from '../payin/charge-request.ts';
import { type CheckAccount, checkAccountOf, type CheckFieldsRequest, methodCheckAccount, requireAchNetwork, sendsBankAccount } from './check-account.ts';
import { parsePaymentSource } from '../../domain/payment-source.ts';
import { isCheckMethod, readMethodAccount } from '../../store/ach/method-account.ts';
import { achCallTimeoutMs } from '../../providers/ach-network.ts';
import { type CheckSubmitDeps, submitCheckEntry } from './check-submit.ts';

export interface CheckDeps extends Omit<CheckSubmitDeps, 'network'> {
  /** Null when this installation takes no checks (PAYRAIL_ACH_NETWORK=none). */
  readonly network: AchNetwork | null;
  readonly cipher: CardCipher;
}

/** What the check flows get from the service. */
export function checkDepsOf(service: Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'providerKeys' | 'config'>, cipher: CardCipher): CheckDeps {
  return {
    db: service.db,
    clock: service.clock,
    log: service.log,
    network: service.providers.achNetwork,
    providerKeys: service.providerKeys,
    cutoffMinuteOfDay: service.config.achCutoffMinuteOfDay,
    cipher,
  };
}

/** The same, loading the card-data key itself (for the routes, which never hold a cipher). */
export function checkDepsFor(service: Pick<Service, 'db' | 'clock' | 'log' | 'providers' | 'providerKeys' | 'config'>): CheckDeps {
  return checkDepsOf(service, cardCipherFor(service.config));
}

/** A check's reply in the dialect it was asked in: what the request answers and its Idempotency-Key keeps. */
export const checkReplyJson = (row: TransactionRow): string => JSON.stringify(renderCharge(row, [], dialectOf(row)));

/**
 * The reply a check row's Idempotency-Key keeps, whoever records its answer
 * (the request, or the worker re-submitting an unanswered entry): a charge's
 * in the dialect it was asked in; a refund's or credit's in the spec
 * dialect, which the route translates for accept.blue callers as it does a
 * card operation's.
 */
export const checkRowReplyJson = (row: TransactionRow): string => (row.kind === 'charge' ? checkReplyJson(row) : JSON.stringify(renderCharge(row)));

/** The worker asks about a check whose request never recorded the network's answer after this long: the request surely gave up. */
export function checkRetryAfterMs(network: AchNetwork): number {
  return 2 * achCallTimeoutMs(network);
}

/** Refuses what a check cannot do in a charge request. */
export function refuseCheckOnlyRules(request: Pick<ChargeRequest, 'capture' | 'save_card'>): void {
  if (request.capture === false) fail('invalid_request', 'a check cannot be authorized only: capture must be true (or absent) with a bank account');
  if (request.save_card === true) fail('invalid_request', 'save_card applies to cards; save a bank account as a check payment method instead');
}

/**
 * One check charge of `amountCents` (the requested amount plus the merchant's
 * check surcharge `surchargeCents`). `network` is the installation's (checked
 * by the caller before anything was read).
 */
export async function chargeCheckOnce(
  deps: CheckDeps & { readonly network: AchNetwork },
  payer: Payer,
  input: { request: ChargeRequest; account: CheckAccount; amountCents: number; surchargeCents: number; idem: KeyedRequest | null },
): Promise<Reply> {
  const { request, account } = input;
  const accountSealed = deps.cipher.seal(account.accountNumber, 'card_number', payer.sourceId);
  const key: CheckKeyClaim | null =
    input.idem === null ? null : { sourceId: payer.sourceId, idemKey: input.idem.key, requestHash: input.idem.requestHash, ttlMs: IDEMPOTENCY_KEY_TTL_MS };
  const reservation: CheckReservation = await reserveCheck(deps.db, {
    clock: deps.clock,
    key,
    row: {
      merchantId: payer.merchantId,
      sourceId: payer.sourceId,
      kind: 'charge',
      parentPk: null,
      amountCents: input.amountCents,
      accountSealed,
      last4: account.last4,
      requestJson: JSON.stringify({
        ...storedRequest(request, undefined, { wireDialect: payer.wireDialect ?? 'spec' }),
        surcharge_cents: input.surchargeCents,
      }),
      customerPk: request.customer?.customer_id ?? account.method?.customerPk ?? null,
      paymentMethodPk: account.method?.pk ?? null,
      accountName: account.name,
      routingNumber: account.routingNumber,
      accountType: account.accountTypeAsSent,
      secCode: account.secCode,
      network: deps.network.name,
      retryAfterMs: checkRetryAfterMs(deps.network),
    },
  });
  if (reservation.kind === 'taken') return replayCheck(deps, payer, input.idem!);
  if (reservation.kind === 'refused') {
    // Only a saved method can vanish between the look-up and the reservation.
    fail('not_found', `source pm-${account.method?.pk ?? ''} names no payment method`);
  }
  const outcome = await submitCheckEntry(deps, { row: reservation.row, direction: 'debit', account, replyJson: checkReplyJson });
  const json = checkReplyJson(outcome.row);
  if (outcome.kind === 'unknown' && input.idem !== null) await markUnanswered(deps, payer, input.idem.key, outcome.row.pk, json);
  return { statusCode: 200, json };
}

/** A same-key check charge made elsewhere: its reply, or (its request gave up or died) its current state. */
function replayCheck(deps: CheckDeps & { readonly network: AchNetwork }, payer: Payer, idem: KeyedRequest): Promise<Reply> {
  const waitMs = achCallTimeoutMs(deps.network) + IDEMPOTENCY_WAIT_MARGIN_MS;
  return replayKey(deps, payer.sourceId, idem, waitMs, async (reservedAtMs) => {
    const held = await readChargeHoldingKey(deps.db, { merchantId: payer.merchantId, sourceId: payer.sourceId, idemKey: idem.key, reservedAtMs });
    const row = held === undefined ? undefined : await readCheckTransaction(deps.db, held.pk, payer.merchantId);
    if (row === undefined) fail('internal_server_error', 'the charge holding this Idempotency-Key could not be read; retry');
    return { statusCode: 200, json: checkReplyJson(row) };
  });
}

/** Lets same-key retries answer the pending reply at once (best effort, as for cards). */
async function markUnanswered(deps: CheckDeps, payer: Payer, idemKey: string, pk: number, pendingJson: string): Promise<void> {
  try {
    await markKeyUnanswered(deps.db, { sourceId: payer.sourceId, idemKey, pendingJson });
  } catch (error) {
    deps.log.error(
      { check: pk, err: errorSummary(error) },
      'could not mark the Idempotency-Key of an unanswered check; retries will wait for its request time',
    );
  }
}

/**
 * The bank account a charge or credit request pays with, or null when it
 * pays with a card: a bank account sent as such, or a `pm-` source naming a
 * saved check method. A check is refused here, before anything is written,
 * when the installation has no ACH network.
 */
export async function checkAccountOfRequest(
  deps: Pick<CheckDeps, 'db' | 'network' | 'cipher'> | undefined,
  db: Service['db'],
  merchantId: string,
  request: CheckFieldsRequest & { readonly source?: string | undefined },
): Promise<CheckAccount | null> {
  if (sendsBankAccount(request)) {
    requireAchNetwork(deps?.network ?? null);
    return checkAccountOf(request);
  }
  const source = request.source === undefined ? null : parsePaymentSource(request.source);
  if (source?.kind !== 'method' || !(await isCheckMethod(db, merchantId, source.methodPk))) return null;
  const checks = requireChecks(deps);
  const method = await readMethodAccount(db, merchantId, source.methodPk);
  if (method === undefined) fail('not_found', `source pm-${source.methodPk} names no payment method`);
  return methodCheckAccount(checks.cipher, method, request);
}

/** The check deps with a network, or the refusal of a check on an installation without one. */
export function requireChecks<D extends Pick<CheckDeps, 'network'>>(deps: D | undefined): D & { readonly network: AchNetwork } {
  const network = requireAchNetwork(deps?.network ?? null);
  return { ...deps!, network };
}
