// How long a check's sealed account number is kept (behaviour.md section
// 17). While its entry can still move (submitting, pending, voiding,
// originated, settled and watched for returns) the account is needed to send
// it again; once it is final, a refund of a settled check is sent to the
// same account, and a late dispute may need it looked up. So the number is
// kept ACH_ACCOUNT_RETENTION_MS after the entry became final, then erased
// (only its last four digits stay). A refund asked for after that is
// refused for want of the account.
import { DAY_MS } from '../../domain/clock.ts';
import type { Service } from '../../service.ts';
import { eraseAchAccounts, hasErasableAchAccounts } from '../../store/ach/account-retention.ts';

/**
 * 120 days: NACHA allows a consumer 60 days after the statement to dispute
 * an unauthorized debit (R10, R29 returns come that late), and a refund is
 * asked for within that in practice; twice that margin, then gone.
 */
export const ACH_ACCOUNT_RETENTION_MS = 120 * DAY_MS;
/** Rows erased per batch: a batch never holds the writer for long. */
export const ACH_ERASE_BATCH_MAX = 500;

/** Erases one batch of account numbers past their retention; returns how many. */
export async function eraseExpiredAchAccounts(deps: Pick<Service, 'db' | 'clock'>, limit = ACH_ERASE_BATCH_MAX): Promise<number> {
  const nowMs = deps.clock.nowMs();
  const finalBeforeMs = nowMs - ACH_ACCOUNT_RETENTION_MS;
  if (!(await hasErasableAchAccounts(deps.db, finalBeforeMs))) return 0;
  return eraseAchAccounts(deps.db, { finalBeforeMs, limit });
}
