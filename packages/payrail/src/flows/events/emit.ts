// Events' data (docs/api-decisions.md section 11), written in the
// transaction of the change (store/event-outbox.ts for card and schedule events), so an event exists exactly when its change
// committed (a transactional outbox). `data` is the object exactly as its GET
// endpoint shows it at that moment: a card transaction as
// GET /api/v2/transactions/:id, a transfer as the status `result`
// (flows/transfers/events.ts), a batch as
// GET /api/v2/batches/:id (written by flows/payin/batches.ts), a schedule as
// GET /api/v2/recurring-schedules/:id. `livemode` is not stored: one deployment serves
// one environment, so it is added when the event is shown or sent.
import type { EventViews } from '../../store/event-outbox.ts';
import { renderCharge } from '../payin/charge-answers.ts';
import { renderSchedule } from '../vault/schedule-view.ts';
import { FUNDED_TRANSFERS_SHOWN_MAX } from '../transfers/funding.ts';

/** How events show card transactions and schedules: the same views as their GET endpoints. */
export const EVENT_VIEWS: EventViews = {
  transactionJson: (row, funded) => JSON.stringify(renderCharge(row, funded)),
  scheduleJson: (row) => JSON.stringify(renderSchedule(row)),
  fundedTransfersShownMax: FUNDED_TRANSFERS_SHOWN_MAX,
};
