// Corridors: the destination routes of the transfer API, one per service id.
// They are configuration (a JSON file), not code, so adding a route or
// changing a limit is a deployment setting. The file is read and checked once
// at start; a bad file stops the service with every problem listed.
import { parseDollarString, RATE_TEXT_PATTERN } from './money.ts';

export interface RequiredAttribute {
  readonly name: string;
  /** When set, the attribute's value must be one of these. */
  readonly allowedValues: readonly string[] | null;
}

export interface Corridor {
  readonly service: string;
  /** ISO 3166-1 alpha-2 code of the receiver's country. */
  readonly country: string;
  /** ISO 4217 code of the receiver's currency. */
  readonly currency: string;
  /** ISO 4217 exponent of the currency (KES 2, UGX 0, KWD 3). */
  readonly currencyMinorUnits: number;
  /** Sandbox rate: receiver currency units per 1 USD, as exact decimal text. */
  readonly fxRate: string;
  readonly minAmountCents: number;
  readonly maxAmountCents: number;
  readonly requiredAttributes: readonly RequiredAttribute[];
  /**
   * The payout connector that pays this corridor's receivers (behaviour.md
   * section 18): a built-in name or a module, or null for the deployment's
   * PAYRAIL_PAYOUT_NETWORK.
   */
  readonly payoutConnector: string | null;
  /**
   * That connector's settings for this corridor (`target_environment` and
   * `currency` for mtn-momo, `provider` for pawapay), as text; the connector
   * checks them at start (PayoutNetwork.corridorProblems).
   */
  readonly payoutSettings: Readonly<Record<string, string>>;
  /** Taken off the FX provider's rate, in percent as exact decimal text ("1.5"); "0" for none. */
  readonly fxMarginPercent: string;
}

export interface CorridorTable {
  readonly corridors: readonly Corridor[];
  byService(service: string): Corridor | undefined;
}

export class CorridorFileError extends Error {
  override readonly name = 'CorridorFileError';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`invalid corridors file ${file}:\n  - ${problems.join('\n  - ')}`);
  }
}

/** A table this large is a mistake, not a deployment. */
const CORRIDORS_MAX = 1000;
const ATTRIBUTES_PER_CORRIDOR_MAX = 32;
const SERVICE_PATTERN = /^[0-9]{1,10}$/;
const COUNTRY_PATTERN = /^[A-Z]{2}$/;
const CURRENCY_PATTERN = /^[A-Z]{3}$/;
const ATTRIBUTE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** A connector is a built-in name or a module path (domain/connector-spec.ts checks which at start). */
const CONNECTOR_PATTERN = /^[\x21-\x7e]{1,1024}$/;
const PAYOUT_SETTINGS_MAX = 16;
const PAYOUT_SETTING_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const PAYOUT_SETTING_VALUE_CHARS_MAX = 200;
/** A margin below 100 %, at most 4 decimals: "0", "1.5", "2.25". */
const MARGIN_PATTERN = /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/;

/** Checks a parsed corridors document; throws with every problem found. */
export function parseCorridors(document: unknown, file = '(inline)'): CorridorTable {
  const problems: string[] = [];
  const corridors: Corridor[] = [];
  const list = isRecord(document) ? document.corridors : undefined;
  if (!Array.isArray(list) || list.length === 0) {
    throw new CorridorFileError(file, ['the document must be an object with a non-empty "corridors" array']);
  }
  if (list.length > CORRIDORS_MAX) problems.push(`at most ${CORRIDORS_MAX} corridors are allowed, got ${list.length}`);
  const seen = new Set<string>();
  list.slice(0, CORRIDORS_MAX).forEach((entry: unknown, index) => {
    const where = `corridors[${index}]`;
    if (!isRecord(entry)) {
      problems.push(`${where} must be an object`);
      return;
    }
    const text = (field: string, pattern: RegExp, hint: string): string => {
      const value = entry[field];
      if (typeof value !== 'string' || !pattern.test(value)) {
        problems.push(`${where}.${field} must be ${hint}, got ${JSON.stringify(value)}`);
        return '';
      }
      return value;
    };
    const service = text('service', SERVICE_PATTERN, 'a string of 1 to 10 digits');
    if (service !== '' && seen.has(service)) problems.push(`${where}.service ${service} appears twice`);
    seen.add(service);
    const country = text('country', COUNTRY_PATTERN, 'an ISO 3166-1 alpha-2 code such as "KE"');
    const currency = text('currency', CURRENCY_PATTERN, 'an ISO 4217 code such as "KES"');
    const minorUnits = entry.currency_minor_units;
    if (typeof minorUnits !== 'number' || !Number.isInteger(minorUnits) || minorUnits < 0 || minorUnits > 4) {
      problems.push(`${where}.currency_minor_units must be an integer from 0 to 4, got ${JSON.stringify(minorUnits)}`);
    }
    const fxRate = text('fx_rate', RATE_TEXT_PATTERN, 'a positive decimal string such as "129.25"');
    if (fxRate !== '' && !/[1-9]/.test(fxRate)) problems.push(`${where}.fx_rate must be greater than zero`);
    const amount = (field: string): number => {
      const value = entry[field];
      const parsed = typeof value === 'string' ? parseDollarString(value) : null;
      if (parsed === null || !parsed.ok) {
        problems.push(`${where}.${field} must be a dollar amount string such as "1.00", got ${JSON.stringify(value)}`);
        return 0;
      }
      return parsed.cents;
    };
    const minAmountCents = amount('min_amount');
    const maxAmountCents = amount('max_amount');
    if (minAmountCents > maxAmountCents) problems.push(`${where}: min_amount is above max_amount`);
    const requiredAttributes = parseRequiredAttributes(entry.required_attributes, where, problems);
    const payoutConnector = parsePayoutConnector(entry.payout_connector, where, problems);
    const payoutSettings = parsePayoutSettings(entry.payout_settings, where, problems);
    const fxMarginPercent = parseMargin(entry.fx_margin_percent, where, problems);
    corridors.push({
      service,
      country,
      currency,
      currencyMinorUnits: typeof minorUnits === 'number' ? minorUnits : 0,
      fxRate,
      minAmountCents,
      maxAmountCents,
      requiredAttributes,
      payoutConnector,
      payoutSettings,
      fxMarginPercent,
    });
  });
  if (problems.length > 0) throw new CorridorFileError(file, problems);
  const index = new Map(corridors.map((corridor) => [corridor.service, corridor]));
  return { corridors, byService: (service) => index.get(service) };
}

function parseRequiredAttributes(value: unknown, where: string, problems: string[]): RequiredAttribute[] {
  if (!Array.isArray(value)) {
    problems.push(`${where}.required_attributes must be an array (empty for none)`);
    return [];
  }
  if (value.length > ATTRIBUTES_PER_CORRIDOR_MAX) {
    problems.push(`${where}.required_attributes may list at most ${ATTRIBUTES_PER_CORRIDOR_MAX} attributes`);
  }
  const names = new Set<string>();
  const out: RequiredAttribute[] = [];
  value.slice(0, ATTRIBUTES_PER_CORRIDOR_MAX).forEach((item: unknown, i) => {
    const at = `${where}.required_attributes[${i}]`;
    if (!isRecord(item) || typeof item.name !== 'string' || !ATTRIBUTE_NAME_PATTERN.test(item.name)) {
      problems.push(`${at} must be an object with a "name" such as "receiverName"`);
      return;
    }
    if (names.has(item.name)) problems.push(`${at}: ${item.name} is listed twice`);
    names.add(item.name);
    let allowedValues: string[] | null = null;
    if (item.allowed_values !== undefined) {
      const allowed = item.allowed_values;
      if (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((v) => typeof v === 'string' && v !== '')) {
        problems.push(`${at}.allowed_values must be a non-empty array of non-empty strings`);
      } else {
        allowedValues = allowed as string[];
      }
    }
    out.push({ name: item.name, allowedValues });
  });
  return out;
}

function parsePayoutConnector(value: unknown, where: string, problems: string[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !CONNECTOR_PATTERN.test(value)) {
    problems.push(`${where}.payout_connector must be a connector name such as "mtn-momo" or "pawapay", or a module path`);
    return null;
  }
  return value;
}

function parsePayoutSettings(value: unknown, where: string, problems: string[]): Readonly<Record<string, string>> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    problems.push(`${where}.payout_settings must be an object of text settings such as {"provider": "MTN_MOMO_ZMB"}`);
    return {};
  }
  const entries = Object.entries(value);
  if (entries.length > PAYOUT_SETTINGS_MAX) problems.push(`${where}.payout_settings may hold at most ${PAYOUT_SETTINGS_MAX} settings`);
  const settings: Record<string, string> = {};
  for (const [name, setting] of entries.slice(0, PAYOUT_SETTINGS_MAX)) {
    if (!PAYOUT_SETTING_NAME_PATTERN.test(name)) {
      problems.push(`${where}.payout_settings: ${JSON.stringify(name.slice(0, 64))} is not a setting name (lower case, digits, _)`);
    } else if (typeof setting !== 'string' || setting === '' || setting.length > PAYOUT_SETTING_VALUE_CHARS_MAX) {
      problems.push(`${where}.payout_settings.${name} must be non-empty text of at most ${PAYOUT_SETTING_VALUE_CHARS_MAX} characters`);
    } else {
      settings[name] = setting;
    }
  }
  return Object.freeze(settings);
}

function parseMargin(value: unknown, where: string, problems: string[]): string {
  if (value === undefined || value === null) return '0';
  if (typeof value !== 'string' || !MARGIN_PATTERN.test(value)) {
    problems.push(`${where}.fx_margin_percent must be a decimal string from "0" to below "100" with at most 4 decimals, such as "1.5"`);
    return '0';
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
