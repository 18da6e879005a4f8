// Recurring schedules as rules (docs/api-decisions.md section 15): the
// frequencies, the calendar arithmetic of run dates (UTC days written
// YYYY-MM-DD), and what a run's outcome does to a schedule. Pure: the store
// keeps the facts, the worker and the sandbox call apply what this decides.

export const FREQUENCIES = ['daily', 'weekly', 'biweekly', 'monthly', 'bimonthly', 'quarterly', 'biannually', 'annually'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const SCHEDULE_STATUSES = ['active', 'declined', 'failed', 'finished'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** A declined run is tried again on this many following days before the schedule fails. */
export const DECLINE_RETRY_DAYS = 3;

/** Each frequency as a step of days or of calendar months. */
const STEPS: Readonly<Record<Frequency, { days: number } | { months: number }>> = {
  daily: { days: 1 },
  weekly: { days: 7 },
  biweekly: { days: 14 },
  monthly: { months: 1 },
  bimonthly: { months: 2 },
  quarterly: { months: 3 },
  biannually: { months: 6 },
  annually: { months: 12 },
};

const DATE_PATTERN = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DAY_MS = 24 * 60 * 60 * 1000;

export function isFrequency(text: unknown): text is Frequency {
  return typeof text === 'string' && (FREQUENCIES as readonly string[]).includes(text);
}

/** The UTC day of `text` (YYYY-MM-DD) as its start in ms, or null when it is no real day. */
export function parseRunDate(text: string): number | null {
  const match = DATE_PATTERN.exec(text);
  if (match === null) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  const date = new Date(ms);
  if (date.getUTCFullYear() !== Number(match[1]) || date.getUTCMonth() !== Number(match[2]) - 1 || date.getUTCDate() !== Number(match[3])) return null;
  return ms;
}

/** The UTC day containing `ms`, as YYYY-MM-DD. */
export function runDateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const ms = parseRunDate(date);
  if (ms === null) throw new Error(`not a run date: ${date}`);
  return runDateOf(ms + days * DAY_MS);
}

/** The day of the month of a run date: what monthly steps keep. */
export function anchorDayOf(date: string): number {
  return Number(date.slice(8, 10));
}

/**
 * The date one period after `date`. Month steps land on `anchorDay` (the day
 * of the month the schedule was set to), or on the month's last day when it
 * has no such day: Jan 31 monthly runs Feb 28, then Mar 31.
 */
export function nextPeriodDate(date: string, frequency: Frequency, anchorDay = anchorDayOf(date)): string {
  const step = STEPS[frequency];
  if ('days' in step) return addDays(date, step.days);
  const ms = parseRunDate(date);
  if (ms === null) throw new Error(`not a run date: ${date}`);
  const d = new Date(ms);
  const monthIndex = d.getUTCFullYear() * 12 + d.getUTCMonth() + step.months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return runDateOf(Date.UTC(year, month, Math.min(anchorDay, lastDay)));
}

/** What a schedule is before a run's outcome is applied. */
export interface ScheduleState {
  readonly frequency: Frequency;
  readonly cycleDate: string;
  readonly anchorDay: number;
  readonly numLeft: number;
  readonly retries: number;
  readonly active: boolean;
  readonly status: ScheduleStatus;
}

export interface ScheduleChange {
  readonly nextRunDate: string;
  readonly cycleDate: string;
  readonly numLeft: number;
  readonly retries: number;
  readonly active: boolean;
  readonly status: ScheduleStatus;
  /** The section 15 event this change records. */
  readonly event: 'schedule.charged' | 'schedule.declined' | 'schedule.failed' | 'schedule.finished';
}

/**
 * The schedule after the run of `runDate` ended `approved` or not. An
 * approval pays the cycle: the next run is one period after the cycle date,
 * `num_left` counts down (0 means unlimited) and the schedule finishes when
 * the last one is paid. A decline (or processor failure) retries on each of
 * the next DECLINE_RETRY_DAYS days, then fails the schedule and stops it.
 */
export function afterRun(state: ScheduleState, runDate: string, approved: boolean): ScheduleChange {
  if (approved) {
    const nextCycle = nextPeriodDate(state.cycleDate, state.frequency, state.anchorDay);
    if (state.numLeft === 1) {
      return { nextRunDate: nextCycle, cycleDate: nextCycle, numLeft: 0, retries: 0, active: false, status: 'finished', event: 'schedule.finished' };
    }
    const numLeft = state.numLeft === 0 ? 0 : state.numLeft - 1;
    return { nextRunDate: nextCycle, cycleDate: nextCycle, numLeft, retries: 0, active: state.active, status: 'active', event: 'schedule.charged' };
  }
  if (state.retries < DECLINE_RETRY_DAYS) {
    return {
      nextRunDate: addDays(runDate, 1),
      cycleDate: state.cycleDate,
      numLeft: state.numLeft,
      retries: state.retries + 1,
      active: state.active,
      status: 'declined',
      event: 'schedule.declined',
    };
  }
  return {
    nextRunDate: runDate,
    cycleDate: state.cycleDate,
    numLeft: state.numLeft,
    retries: state.retries,
    active: false,
    status: 'failed',
    event: 'schedule.failed',
  };
}
