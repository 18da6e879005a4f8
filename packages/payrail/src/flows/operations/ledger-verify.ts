// The independent side of the ledger's invariants. The write path keeps
// cached balances and refuses to pass a floor; this recomputes everything
// from the immutable postings and the business records and reports each
// difference. `payrail ledger verify` exits non-zero when any is found.
// The facts come from one snapshot, so it can run while traffic moves money.
//
// It also counts the open differences of reconciliation with the card
// processor (processor-reconciliation.ts), reported beside the result but
// never as a problem: they say Payrail and the processor disagree on what
// settled, not that the ledger disagrees with itself.
import type { Db } from '../../store/db.ts';
import { readLedgerFacts, type LedgerFacts } from '../../store/ledger-audit.ts';
import { openDifferenceCount } from '../../store/operations/processor-reconciliation.ts';

export interface VerifyReport {
  readonly ok: boolean;
  readonly accounts: number;
  readonly postings: number;
  readonly problems: string[];
  /** Open differences with the card processor's settlements; not ledger problems (they do not change `ok`). */
  readonly openProcessorDifferences: number;
}

/** A report never lists more than this many problems. */
const PROBLEMS_LISTED_MAX = 100;

export async function verifyLedger(db: Db): Promise<VerifyReport> {
  const facts = await readLedgerFacts(db);
  const problems: string[] = [];
  const report = (text: string) => {
    if (problems.length < PROBLEMS_LISTED_MAX) problems.push(text);
  };
  const balances = checkBalances(facts, report);
  for (const id of facts.malformedPostingIds) report(`posting ${id} is not a positive movement between two accounts`);
  for (const row of facts.duplicatedPostings) report(`${row.ref_type} ${row.ref_id} has ${row.n} postings of kind ${row.kind}`);
  checkBusinessRecords(facts, balances, report);
  const openProcessorDifferences = await openDifferenceCount(db);
  return { ok: problems.length === 0, accounts: facts.accounts.length, postings: facts.postingCount, problems, openProcessorDifferences };
}

/** Cached balances equal their postings, respect their floors, and sum to zero. */
function checkBalances(facts: LedgerFacts, report: (text: string) => void): Map<string, number> {
  let totalCents = 0;
  const balances = new Map<string, number>();
  for (const account of facts.accounts) {
    const balanceCents = Number(account.balance_cents);
    const derived = (facts.credits.get(account.id) ?? 0) - (facts.debits.get(account.id) ?? 0);
    balances.set(account.id, balanceCents);
    totalCents += balanceCents;
    if (derived !== balanceCents) report(`account ${account.id}: cached balance ${balanceCents} != ${derived} from postings`);
    if (account.floor_cents !== null && balanceCents < Number(account.floor_cents)) {
      report(`account ${account.id}: balance ${balanceCents} is below its floor ${account.floor_cents}`);
    }
  }
  for (const id of new Set([...facts.credits.keys(), ...facts.debits.keys()])) {
    if (!balances.has(id)) report(`postings reference unknown account ${id}`);
  }
  if (totalCents !== 0) report(`balances sum to ${totalCents}, not 0`);
  return balances;
}

/** The ledger must agree with the transfers, card charges and checks it moved money for. */
function checkBusinessRecords(facts: LedgerFacts, balances: Map<string, number>, report: (text: string) => void): void {
  for (const id of facts.merchantIds) {
    const check = (kind: string, expected: number, sign: 1 | -1) => {
      const actual = (balances.get(`${id}:${kind}`) ?? 0) * sign;
      if (actual !== expected) report(`merchant ${id}: ${kind} ledger ${actual} != ${expected} from records`);
    };
    check('in_flight', facts.inFlightByMerchant.get(id) ?? 0, 1);
    check('paid_out', facts.paidOutByMerchant.get(id) ?? 0, 1);
    check('card_payins', facts.cardPayinsByMerchant.get(id) ?? 0, -1);
    check('ach_pending', facts.ach.pendingByMerchant.get(id) ?? 0, 1);
    check('ach_payins', facts.ach.payinsByMerchant.get(id) ?? 0, 1);
    check('ach_returns_due', facts.ach.returnsDueByMerchant.get(id) ?? 0, -1);
  }
  for (const row of facts.transfersWithMismatchedPostings) report(`transfer ${row.pk} (state ${row.state}) has postings that do not match its state`);
  for (const row of facts.chargesWithMismatchedPostings) report(`charge ${row.pk} (${row.status}) has postings that do not match its status`);
  for (const row of facts.orphanPostings) report(`posting ${row.id} names ${row.ref_type} ${row.ref_id}, which does not exist`);
  for (const row of facts.transfersOfUnknownMerchants) report(`transfer ${row.pk} names merchant ${row.merchant_id}, which does not exist`);
  for (const row of facts.historyOfUnknownTransfers) report(`transfer history row ${row.id} names transfer ${row.transfer_pk}, which does not exist`);
  for (const pk of facts.chargesWithWrongLinkedTotal) report(`charge ${pk}: linked amount does not equal the sum of its transfer links`);
  for (const pk of facts.chargesWithWrongRefundedTotal) report(`charge ${pk}: refunded amount does not equal the sum of its refunds`);
  checkAchRecords(facts, report);
}

/** Checks (behaviour.md section 17): each ACH entry's postings match its state; see store/ach/ledger-audit.ts for the rules. */
function checkAchRecords(facts: LedgerFacts, report: (text: string) => void): void {
  const ach = facts.ach;
  for (const row of ach.entriesWithMismatchedPostings) report(`check ${row.pk} (${row.state}) has postings that do not match its state`);
  for (const pk of ach.checksWithoutEntry) report(`check ${pk} has no ACH entry`);
  for (const pk of ach.entriesNotMatchingTheirRow) report(`ACH entry ${pk} does not match its transaction (not a check, or another amount or merchant)`);
  for (const pk of ach.cardsWithCheckPostings) report(`card charge ${pk} has check postings`);
  for (const pk of ach.checksWithWrongRefundedTotal) report(`check ${pk}: refunded amount does not equal the sum of its live refunds`);
  for (const pk of ach.checksNotMatchingTheirEntry) report(`check ${pk}: captured amount or status does not match its ACH entry's state`);
}
