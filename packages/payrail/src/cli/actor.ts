// Who runs a `payrail` command, for the audit trail: the command line, with
// the operating-system account that ran it when the system can tell.
import os from 'node:os';
import type { AuditActor } from '../domain/audit.ts';

export function cliActor(): AuditActor {
  let account: string | null;
  try {
    account = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): the environment may still say.
    account = process.env.USER ?? process.env.LOGNAME ?? null;
  }
  return { kind: 'cli', id: account, label: null, address: null };
}
