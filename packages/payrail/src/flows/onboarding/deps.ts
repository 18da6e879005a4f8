// What the onboarding flows (sign-up, approval, one-time credentials links)
// need from the service. The Service satisfies it; the CLI passes it too.
import type { Config } from '../../config.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Db } from '../../store/db.ts';

export interface OnboardingDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Config;
}

/** Links in mails point at the deployment's public URL. */
export function linkUrl(deps: OnboardingDeps, path: string): string {
  return `${deps.config.publicUrl}${path}`;
}
