// Provider callbacks (behaviour.md section 18, providers/callbacks.ts): a
// provider reports at `POST /providers/<connector>/callbacks`; the connector
// named in the path checks the signature and says what the callback is
// about. A refused callback (401) and an unknown connector (404) change
// nothing. A verified one is only a hint: for a card payment the pending
// charge it names is asked about at the processor and the answer recorded
// by the same single-charge path the worker runs (payin/charge-recovery.ts),
// through the same guarded store command. So a replayed callback finds the
// charge final and changes nothing, a forged one cannot invent an outcome,
// and polling stays the backstop for a callback that never arrives or whose
// poll found the processor unreachable. A payout's transfer is likewise
// re-read from its network by the worker's single-transfer step
// (payout-callbacks.ts, transfers/advance.ts).
//
// The body is never logged: it is the provider's, and may carry card or
// personal data.
import { fail } from '../../errors.ts';
import type { CallbackHint, CallbackReceiver, CallbackVerdict, ProviderCallback } from '../../providers/callbacks.ts';
import type { Providers } from '../../providers/index.ts';
import type { Service } from '../../service.ts';
import { readPendingCharge, readPendingChargeByProcessorRef } from '../../store/payin/charge-reads.ts';
import { errorSummary } from '../common/error-summary.ts';
import { type KycHintResult, refreshSessionDecision } from '../transfers/kyc-decisions.ts';
import { type PendingChargeResolution, type RecoveryDeps, recoveryDepsOf, resolvePendingCharge } from '../payin/charge-recovery.ts';
import { applyPayoutHint, type PayoutHintResult } from './payout-callbacks.ts';

/** Hints applied from one callback; providers report one payment per callback, so more is a connector's mistake. */
export const CALLBACK_HINTS_MAX = 20;

/** Longest processor id looked up (Authorize.net's transId has 12 digits); a longer one is no payment of ours. */
const PROCESSOR_REF_CHARS_MAX = 128;

export interface CallbackDeps extends RecoveryDeps {
  readonly providers: Providers;
  /** The whole service, for the transfer worker's single-transfer step (payout hints). */
  readonly service: Service;
}

export function callbackDepsOf(service: Service): CallbackDeps {
  return { ...recoveryDepsOf(service), providers: service.providers, service };
}

/** Which connector a callback is for: the one whose name is in the URL and that takes callbacks. */
export function callbackReceiverOf(providers: Providers, connectorName: string): CallbackReceiver | null {
  // The card processor's callbacks today; the payout network's and the KYC
  // provider's once their connectors offer them (behaviour.md section 18:
  // mtn-momo, pawapay, veriff). Their hints are applied below by kind.
  const candidates: ReadonlyArray<{ readonly name?: string; readonly callbacks?: CallbackReceiver }> = [
    providers.cardProcessor,
    providers.payoutNetwork,
    ...providers.payoutNetworks.values(),
    providers.kyc,
  ];
  return candidates.find((connector) => connector.name === connectorName && connector.callbacks !== undefined)?.callbacks ?? null;
}

/** What became of one hint, for the log line. */
type HintResult = PendingChargeResolution | KycHintResult | PayoutHintResult | 'no-pending-payment' | 'not-applied';

/** What the route answers a verified callback. */
export interface CallbackReceipt {
  readonly received: true;
}

export async function receiveCallback(deps: CallbackDeps, connectorName: string, callback: ProviderCallback): Promise<CallbackReceipt> {
  const receiver = callbackReceiverOf(deps.providers, connectorName);
  if (receiver === null) fail('not_found', `no connector named ${connectorName.slice(0, 40)} takes callbacks`);
  const verdict = await verified(deps, connectorName, receiver, callback);
  if (!verdict.accepted) {
    deps.log.warn({ connector: connectorName, reason: verdict.reason.slice(0, 200), bytes: callback.rawBody.length }, 'provider callback refused');
    fail('invalid_signature');
  }
  const hints = verdict.hints.slice(0, CALLBACK_HINTS_MAX);
  const results: HintResult[] = [];
  for (const hint of hints) results.push(await applyHint(deps, connectorName, hint));
  deps.log.info(
    {
      connector: connectorName,
      hints: verdict.hints.length,
      results,
      ...(verdict.hints.length > hints.length ? { ignored: verdict.hints.length - hints.length } : {}),
    },
    'provider callback received',
  );
  return { received: true };
}

/** The connector's verdict; a receiver that throws (it must not) refuses, so nothing changes. */
async function verified(deps: CallbackDeps, connectorName: string, receiver: CallbackReceiver, callback: ProviderCallback): Promise<CallbackVerdict> {
  try {
    return await receiver.verify(callback);
  } catch (error) {
    deps.log.error({ connector: connectorName, err: errorSummary(error) }, 'callback receiver threw instead of refusing; callback refused');
    return { accepted: false, reason: 'the connector could not read the callback' };
  }
}

async function applyHint(deps: CallbackDeps, connectorName: string, hint: CallbackHint): Promise<HintResult> {
  switch (hint.kind) {
    case 'card':
      return applyCardHint(deps, hint);
    case 'payout':
      return applyPayoutHint(deps, connectorName, hint);
    // A receiver's verification at a provider working in sessions: the
    // session's decision is asked of the provider and kept through one guarded
    // store command (transfers/kyc-decisions.ts). A look-up provider is asked
    // at each request: nothing to keep.
    case 'kyc':
      return refreshSessionDecision({ db: deps.db, clock: deps.clock, log: deps.log, kyc: deps.providers.kyc }, hint.sessionId);
  }
}

/**
 * The pending charge the callback names, asked about and recorded as the
 * worker does: by Payrail's provider key when the callback carries it (it
 * also finds a charge whose authorization never recorded the processor's
 * id), else by the processor's id. A charge that is final already (a
 * replay) or that neither names is left alone, as is one whose recorded
 * processor id is not the callback's.
 */
async function applyCardHint(deps: CallbackDeps, hint: Extract<CallbackHint, { kind: 'card' }>): Promise<HintResult> {
  if (hint.processorRef === '' || hint.processorRef.length > PROCESSOR_REF_CHARS_MAX) return 'no-pending-payment';
  const named = hint.reference === null ? null : deps.providerKeys.parse(hint.reference);
  const charge = named?.kind === 'charge' ? await readPendingCharge(deps.db, named.pk) : await readPendingChargeByProcessorRef(deps.db, hint.processorRef);
  if (charge === undefined) return 'no-pending-payment';
  if (charge.processor_ref !== null && charge.processor_ref !== hint.processorRef) return 'no-pending-payment';
  return resolvePendingCharge(deps, charge, hint.processorRef);
}
