// Which writes change what authentication reads: credentials (secrets,
// revocation), their sources (revocation), PIN failures (lock) and failed
// authentications per address (lock); and merchants' surcharge settings,
// which every card charge reads (security-cache.ts keeps them the same way).
// A store adapter bumps its security version after committing a write to
// any of these tables, and when another process may have done so;
// security-cache.ts keeps what it read only as long as the version stays the
// same.

/** The tables whose writes change an authentication's outcome, or a charge's surcharge. */
const SECURITY_TABLES = /\b(credentials|sources|pin_failures|auth_address_failures|merchant_surcharges)\b/i;
const WRITE_STATEMENT = /^\s*(INSERT|UPDATE|DELETE|WITH|CREATE|DROP|ALTER)\b/i;

const verdicts = new Map<string, boolean>();
/** Distinct statement texts remembered; the statements of the code are far fewer. */
const VERDICTS_MAX = 2_000;

/** True when `sql` may write a table authentication reads (decided once per statement text). */
export function writesSecurityTables(sql: string): boolean {
  let verdict = verdicts.get(sql);
  if (verdict === undefined) {
    verdict = WRITE_STATEMENT.test(sql) && SECURITY_TABLES.test(sql);
    if (verdicts.size >= VERDICTS_MAX) verdicts.clear();
    verdicts.set(sql, verdict);
  }
  return verdict;
}

/** The PostgreSQL channel on which a process tells the others that security tables changed. */
export const SECURITY_CHANNEL = 'payrail_security';
