// The ACH rules (src/domain/ach.ts): routing numbers' ABA check digit,
// account numbers, the business-day calendar and the daily cut-off, which
// entry moves are allowed, and when a check may be voided or refunded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ACH_STATES,
  ACH_STATUS_NAMES,
  accountNumberProblem,
  accountTypeOf,
  achRefundProblem,
  achStatesShowing,
  achTransitionAllowed,
  achVoidProblem,
  addBusinessDays,
  isBusinessDay,
  nextCutoffAfterMs,
  refundableFromMs,
  returnReasonOf,
  routingNumberProblem,
  secCodeOf,
  settlesAtMs,
} from '../../src/domain/ach.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString();
const CUTOFF_21 = 21 * 60;

describe('bank account rules', () => {
  it('accepts routing numbers whose ABA check digit holds and refuses one digit off', () => {
    for (const good of ['011000015', '021000021', '111000025', '122105155', '011401533']) assert.equal(routingNumberProblem(good), null, good);
    assert.match(routingNumberProblem('021000022') ?? '', /check digit/);
    assert.match(routingNumberProblem('02100002') ?? '', /9 digits/);
    assert.match(routingNumberProblem('02100002a') ?? '', /9 digits/);
    assert.match(routingNumberProblem(' 021000021') ?? '', /9 digits/);
  });

  it('takes account numbers of 4 to 17 digits only', () => {
    assert.equal(accountNumberProblem('1234'), null);
    assert.equal(accountNumberProblem('12345678901234567'), null);
    assert.match(accountNumberProblem('123') ?? '', /4 to 17/);
    assert.match(accountNumberProblem('123456789012345678') ?? '', /4 to 17/);
    assert.match(accountNumberProblem('12-34') ?? '', /digits only/);
  });

  it('reads account types and SEC codes in any case', () => {
    assert.equal(accountTypeOf('Checking'), 'checking');
    assert.equal(accountTypeOf('SAVINGS'), 'savings');
    assert.equal(accountTypeOf('business'), null);
    assert.equal(secCodeOf('web'), 'WEB');
    assert.equal(secCodeOf('ARC'), null);
  });
});

describe('the ACH calendar', () => {
  it('counts weekdays only, keeping the time of day', () => {
    assert.equal(isBusinessDay(at('2026-11-27T12:00:00Z')), true); // Friday
    assert.equal(isBusinessDay(at('2026-11-28T12:00:00Z')), false); // Saturday
    assert.equal(iso(addBusinessDays(at('2026-11-27T21:00:00Z'), 1)), '2026-11-30T21:00:00.000Z'); // Friday + 1 = Monday
    assert.equal(iso(addBusinessDays(at('2026-11-25T21:00:00Z'), 2)), '2026-11-27T21:00:00.000Z');
    assert.equal(iso(addBusinessDays(at('2026-11-28T10:00:00Z'), 0)), '2026-11-30T10:00:00.000Z'); // a weekend starts at Monday
    assert.equal(iso(addBusinessDays(at('2026-11-28T10:00:00Z'), 5)), '2026-12-07T10:00:00.000Z');
    assert.throws(() => addBusinessDays(0, -1), /non-negative/);
  });

  it('originates at the first business-day cut-off strictly after submission', () => {
    assert.equal(iso(nextCutoffAfterMs(at('2026-11-25T20:59:59Z'), CUTOFF_21)), '2026-11-25T21:00:00.000Z');
    assert.equal(iso(nextCutoffAfterMs(at('2026-11-25T21:00:00Z'), CUTOFF_21)), '2026-11-26T21:00:00.000Z');
    assert.equal(iso(nextCutoffAfterMs(at('2026-11-27T22:00:00Z'), CUTOFF_21)), '2026-11-30T21:00:00.000Z'); // Friday evening -> Monday
    assert.equal(iso(nextCutoffAfterMs(at('2026-11-28T09:00:00Z'), CUTOFF_21)), '2026-11-30T21:00:00.000Z');
  });

  it('settles two business days after origination and refunds from five after processing', () => {
    assert.equal(iso(settlesAtMs(at('2026-11-26T21:00:00Z'))), '2026-11-30T21:00:00.000Z');
    assert.equal(iso(refundableFromMs(at('2026-11-25T10:00:00Z'))), '2026-12-02T10:00:00.000Z');
  });
});

describe('entry states', () => {
  it('allows exactly the documented moves', () => {
    assert.equal(achTransitionAllowed('submitting', 'pending'), true);
    assert.equal(achTransitionAllowed('pending', 'settled'), false);
    assert.equal(achTransitionAllowed('settled', 'returned'), true);
    assert.equal(achTransitionAllowed('returned', 'settled'), false);
    assert.equal(achTransitionAllowed('voided', 'pending'), false);
    for (const state of ['returned', 'voided', 'declined', 'failed'] as const) {
      for (const to of ACH_STATES) assert.equal(achTransitionAllowed(state, to), false, `${state} is final`);
    }
  });

  it('shows each state as an accept.blue status, and a status filter finds them', () => {
    assert.equal(ACH_STATUS_NAMES.submitting, 'pending');
    assert.equal(ACH_STATUS_NAMES.failed, 'error');
    assert.deepEqual(achStatesShowing(['pending']), ['submitting', 'pending', 'voiding']);
    assert.deepEqual(achStatesShowing(['returned', 'settled']), ['settled', 'returned']);
    assert.deepEqual(achStatesShowing(['captured']), []);
  });

  it('names return codes, preferring the network text', () => {
    assert.equal(returnReasonOf('R01'), 'Insufficient funds');
    assert.equal(returnReasonOf('R99'), 'Return code R99');
    assert.equal(returnReasonOf('R02', '  Closed by bank '), 'Closed by bank');
  });
});

describe('voids and refunds of a check', () => {
  it('voids only before origination', () => {
    assert.equal(achVoidProblem('pending'), null);
    assert.match(achVoidProblem('originated') ?? '', /before it is originated/);
    assert.match(achVoidProblem('voided') ?? '', /already voided/);
  });

  it('refunds a settled check from the fifth business day after processing', () => {
    const created = at('2026-11-25T10:00:00Z');
    assert.match(achRefundProblem('pending', created, at('2026-12-10T00:00:00Z')) ?? '', /voided, not refunded/);
    assert.match(achRefundProblem('returned', created, at('2026-12-10T00:00:00Z')) ?? '', /returned check/);
    assert.match(achRefundProblem('settled', created, at('2026-12-02T09:59:59Z')) ?? '', /5 business days/);
    assert.equal(achRefundProblem('settled', created, at('2026-12-02T10:00:00Z')), null);
  });
});
