// Ordered list of schema migrations. Each has one SQL file per dialect,
// written by hand and kept in step: same tables, same constraints.
import fs from 'node:fs';
import path from 'node:path';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

const names = ['001_init', '002_panel'];

export const MIGRATIONS: readonly Migration[] = names.map((name) => ({
  version: Number(name.slice(0, 3)),
  name,
  sqlite: fs.readFileSync(path.join(import.meta.dirname, `${name}.sqlite.sql`), 'utf8'),
  postgres: fs.readFileSync(path.join(import.meta.dirname, `${name}.postgres.sql`), 'utf8'),
}));
