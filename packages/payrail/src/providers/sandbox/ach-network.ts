// The sandbox ACH network (behaviour.md section 17). An entry is originated
// at the first business-day cut-off (PAYRAIL_ACH_CUTOFF_UTC) after it was
// submitted and settles two business days later, all on the merchant's
// sandbox ACH clock, which `POST /sandbox/ach/advance` moves forward. The
// account number's last four digits choose a return:
//
//   0002 R02, 0003 R03, 0004 R04: returned one business day after
//     origination, before settling (the merchant is never credited);
//   0001 R01, 0005 R10, 0006 R29: settled, then returned one business day
//     after settlement (the credit is taken back).
//
// Like the sandbox card processor it keeps no state of its own: the time of
// submission on the merchant's ACH clock travels in the network reference,
// so every process computes the same answer. A void is decided by the ACH
// clock time of its first ask (AchEntryQuery.firstAskedAtMs, which Payrail
// records with the void; before origination it voids), so asking again after
// a lost answer gets the first answer; this agrees with `status` as long as
// Payrail stops asking about a voided entry, as it does.
import { addBusinessDays, nextCutoffAfterMs, SETTLEMENT_BUSINESS_DAYS } from '../../domain/ach.ts';
import type { Clock } from '../../domain/clock.ts';
import type { AchEntryQuery, AchEntryReport, AchNetwork, AchSubmission, AchSubmitResult, AchVoidResult } from '../ach-network.ts';

/** Where the sandbox keeps each merchant's ACH clock (an offset from the service clock), shared by every process on one store. */
export interface AchClocks {
  offsetMs(merchantId: string): Promise<number>;
}

interface SandboxReturn {
  readonly code: string;
  readonly reason: string;
  /** Business days after origination. */
  readonly afterBusinessDays: number;
}

/** The sandbox's return table, by the account number's last four digits (docs/checks-and-ach.md). */
export const SANDBOX_ACH_RETURNS: Readonly<Record<string, SandboxReturn>> = {
  '0001': { code: 'R01', reason: 'Insufficient funds', afterBusinessDays: SETTLEMENT_BUSINESS_DAYS + 1 },
  '0002': { code: 'R02', reason: 'Account closed', afterBusinessDays: 1 },
  '0003': { code: 'R03', reason: 'No account / unable to locate account', afterBusinessDays: 1 },
  '0004': { code: 'R04', reason: 'Invalid account number structure', afterBusinessDays: 1 },
  '0005': { code: 'R10', reason: 'Customer advises not authorized', afterBusinessDays: SETTLEMENT_BUSINESS_DAYS + 1 },
  '0006': { code: 'R29', reason: 'Corporate customer advises not authorized', afterBusinessDays: SETTLEMENT_BUSINESS_DAYS + 1 },
};

/** achs_<reference>_<submitted at, ACH clock ms>. */
const REF_PATTERN = /^achs_([0-9a-z]{1,20})_([0-9]{1,16})$/;

export interface SandboxAchOptions {
  readonly clock: Clock;
  readonly clocks: AchClocks;
  /** Minutes after midnight UTC of the daily cut-off. */
  readonly cutoffMinuteOfDay: number;
}

export class SandboxAchNetwork implements AchNetwork {
  readonly name = 'sandbox';
  /** Returns come at most one business day after settlement; a week covers weekends. */
  readonly returnWatchMs = 7 * 24 * 3_600_000;

  readonly #options: SandboxAchOptions;

  constructor(options: SandboxAchOptions) {
    this.#options = options;
  }

  async submit(submission: AchSubmission): Promise<AchSubmitResult> {
    const nowMs = await this.#achNowMs(submission.merchantId);
    return { outcome: 'accepted', networkRef: `achs_${submission.reference}_${nowMs}`, declineMessage: null };
  }

  async voidEntry(query: AchEntryQuery): Promise<AchVoidResult> {
    const submittedAtMs = this.#submittedAtMs(query);
    // Decided by the first ask: a void granted then stays granted when asked again after the cut-off.
    const askedAtMs = query.firstAskedAtMs ?? (await this.#achNowMs(query.merchantId));
    return { outcome: askedAtMs < this.#originationMs(submittedAtMs) ? 'voided' : 'too_late' };
  }

  async status(query: AchEntryQuery): Promise<AchEntryReport> {
    const submittedAtMs = this.#submittedAtMs(query);
    const nowMs = await this.#achNowMs(query.merchantId);
    const originatedAtMs = this.#originationMs(submittedAtMs);
    if (nowMs < originatedAtMs) return { state: 'pending' };
    const scenario = SANDBOX_ACH_RETURNS[query.accountLast4];
    if (scenario !== undefined) {
      const returnedAtMs = addBusinessDays(originatedAtMs, scenario.afterBusinessDays);
      if (nowMs >= returnedAtMs) return { state: 'returned', returnedAtMs, returnCode: scenario.code, returnReason: scenario.reason };
    }
    const settledAtMs = addBusinessDays(originatedAtMs, SETTLEMENT_BUSINESS_DAYS);
    if (nowMs >= settledAtMs) return { state: 'settled', originatedAtMs, settledAtMs };
    return { state: 'originated', originatedAtMs };
  }

  async #achNowMs(merchantId: string): Promise<number> {
    return this.#options.clock.nowMs() + (await this.#options.clocks.offsetMs(merchantId));
  }

  #originationMs(submittedAtMs: number): number {
    return nextCutoffAfterMs(submittedAtMs, this.#options.cutoffMinuteOfDay);
  }

  #submittedAtMs(query: AchEntryQuery): number {
    const match = REF_PATTERN.exec(query.networkRef);
    if (match === null || match[1] !== query.reference) throw new Error('not a sandbox ACH reference of this entry');
    return Number(match[2]);
  }
}
