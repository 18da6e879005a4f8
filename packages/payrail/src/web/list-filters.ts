// The filters of the charge and transfer lists, read from the query string
// the same way for a page and for its CSV export. A value that is not valid
// is dropped and named in `problems`, so the page says what was ignored
// instead of failing; `query` holds only the valid values, for the links
// (pages, tabs, export) that keep the filters.
import type { FastifyRequest } from 'fastify';
import {
  CHARGE_PAYMENT_TYPES,
  CHARGE_STATUSES,
  TRANSFER_STATE_FILTERS,
  type ChargeFilters,
  type ChargeStatus,
  type PageCursor,
  type PanelPaymentType,
  type TransferFilters,
  type TransferStateFilter,
} from '../flows/panel/merchant-views.ts';
import type { Service } from '../service.ts';
import { dayStartMs, queryField } from './request.ts';

export interface ParsedFilters<F> {
  readonly filters: F;
  readonly query: Record<string, string>;
  readonly problems: string[];
}

interface DayRange {
  readonly fromMs: number | null;
  readonly toDayMs: number | null;
}

function dayRangeOf(request: FastifyRequest, query: Record<string, string>, problems: string[]): DayRange {
  const fromText = queryField(request, 'from');
  const toText = queryField(request, 'to');
  const fromMs = dayStartMs(fromText);
  let toDayMs = dayStartMs(toText);
  if (fromText !== '' && fromMs === null) problems.push('the From date is not a date');
  if (toText !== '' && toDayMs === null) problems.push('the To date is not a date');
  if (fromMs !== null && toDayMs !== null && toDayMs < fromMs) {
    problems.push('the To date is before the From date');
    toDayMs = null;
  }
  if (fromMs !== null) query.from = fromText;
  if (toDayMs !== null) query.to = toText;
  return { fromMs, toDayMs };
}

export function chargeFiltersOf(request: FastifyRequest): ParsedFilters<Omit<ChargeFilters, keyof PageCursor>> {
  const query: Record<string, string> = {};
  const problems: string[] = [];
  const statusText = queryField(request, 'status');
  const status = (CHARGE_STATUSES as readonly string[]).includes(statusText) ? (statusText as ChargeStatus) : null;
  if (statusText !== '' && status === null) problems.push(`unknown status "${statusText}"`);
  if (status !== null) query.status = status;
  const typeText = queryField(request, 'payment_type');
  const paymentType = (CHARGE_PAYMENT_TYPES as readonly string[]).includes(typeText) ? (typeText as PanelPaymentType) : null;
  if (typeText !== '' && paymentType === null) problems.push(`unknown payment type "${typeText}"`);
  if (paymentType !== null) query.payment_type = paymentType;
  const range = dayRangeOf(request, query, problems);
  return { filters: { status, paymentType, ...range }, query, problems };
}

export function transferFiltersOf(service: Service, request: FastifyRequest): ParsedFilters<Omit<TransferFilters, keyof PageCursor>> {
  const query: Record<string, string> = {};
  const problems: string[] = [];
  const stateText = queryField(request, 'state');
  const state = (TRANSFER_STATE_FILTERS as readonly string[]).includes(stateText) ? (stateText as TransferStateFilter) : 'all';
  if (stateText !== '' && state === 'all' && stateText !== 'all') problems.push(`unknown state "${stateText}"`);
  if (state !== 'all') query.state = state;
  const range = dayRangeOf(request, query, problems);
  const serviceText = queryField(request, 'service');
  const corridor = serviceText === '' ? undefined : service.corridors.byService(serviceText);
  if (serviceText !== '' && corridor === undefined) problems.push(`unknown corridor "${serviceText}"`);
  if (corridor !== undefined) query.service = corridor.service;
  return { filters: { state, ...range, service: corridor?.service ?? null }, query, problems };
}
