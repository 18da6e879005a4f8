// What the control panel's flows need from the service. The Service itself
// satisfies it, so routes pass `service`; the CLI and tests pass just these.
import type { Clock } from '../../domain/clock.ts';
import type { Db } from '../../store/db.ts';

export interface PanelDeps {
  readonly db: Db;
  readonly clock: Clock;
}
