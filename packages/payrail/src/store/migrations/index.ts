// Ordered list of schema migrations. Each is one NNN_name.sql file written
// once, in the neutral SQL that dialect.ts translates for SQLite and for
// PostgreSQL. Versions are recorded in schema_migrations when applied, so a
// migration is never edited once released: add the next one instead.
import fs from 'node:fs';
import path from 'node:path';

export { translateMigration } from './dialect.ts';

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** The migration in neutral SQL; pass it through translateMigration before running it. */
  readonly sql: string;
}

const names = [
  '001_init',
  '002_panel',
  '003_security',
  '004_audit_panel',
  '005_card_lifecycle',
  '007_worker_indexes',
  '008_webhooks',
  '009_stored_cards',
  '010_signup_mail',
  '011_hot_path_keys',
  '012_sparse_charge_indexes',
  '013_event_deliveries',
  '014_wire_dialect',
  '015_card_tokens',
  '016_vault_acceptblue',
  '017_surcharge',
  '018_acceptblue_webhooks',
  '019_charge_adjustments',
  '020_verification_reference_cards',
  '021_transaction_settled_index',
  '022_installation',
  '023_network_transaction_ids',
  '024_processor_reconciliation',
  '025_pending_processor_ref',
  '026_payout_connector',
  '027_receiver_verifications',
  '028_transfer_reversals',
  '029_checks_ach',
  '030_acceptblue_check_events',
  '031_ach_entry_clocks',
  '032_card_data_keys',
  '033_card_key_check',
  '034_panel_sign_in_delays',
  '035_invitation_window',
  '036_reference_card_retention',
];

export const MIGRATIONS: readonly Migration[] = names.map((name) => ({
  version: Number(name.slice(0, 3)),
  name,
  sql: fs.readFileSync(path.join(import.meta.dirname, `${name}.sql`), 'utf8'),
}));
