// A recurring schedule as the API shows it (GET /api/v2/recurring-schedules/:id).
// On its own so that events (flows/events/emit.ts) can render a schedule
// without depending on the schedule flows, which charge cards.
import { isoTime } from '../../domain/iso-time.ts';
import { centsToDollarNumber } from '../../domain/money.ts';
import type { Frequency, ScheduleStatus } from '../../domain/recurring.ts';
import type { ScheduleRow } from '../../store/schedules.ts';

export interface ScheduleView {
  id: number;
  customer_id: number;
  title: string;
  receipt_email: string | null;
  amount: number;
  frequency: Frequency;
  next_run_date: string;
  num_left: number;
  payment_method_id: number;
  active: boolean;
  status: ScheduleStatus;
  created_at: string;
}

export function renderSchedule(row: ScheduleRow): ScheduleView {
  return {
    id: row.pk,
    customer_id: row.customer_pk,
    title: row.title,
    receipt_email: row.receipt_email,
    amount: centsToDollarNumber(row.amount_cents),
    frequency: row.frequency,
    next_run_date: row.next_run_date,
    num_left: row.num_left,
    payment_method_id: row.payment_method_pk,
    active: row.active === 1,
    status: row.status,
    created_at: isoTime(row.created_at_ms),
  };
}
