// "Now" for the check rules (domain/ach.ts: when a check may be refunded):
// the service clock, moved by the merchant's sandbox ACH clock where
// `POST /sandbox/ach/advance` moved it (behaviour.md section 17), so a
// sandbox merchant that advanced past settlement may refund as the network
// sees it. Outside the sandbox no merchant has an offset: the service clock.
import type { Clock } from '../../domain/clock.ts';
import type { Service } from '../../service.ts';
import { sandboxAchClocks } from '../../store/sandbox-ach-clocks.ts';

export async function achNowMs(deps: { readonly db: Service['db']; readonly clock: Clock }, merchantId: string): Promise<number> {
  return deps.clock.nowMs() + (await sandboxAchClocks(deps.db).offsetMs(merchantId));
}
