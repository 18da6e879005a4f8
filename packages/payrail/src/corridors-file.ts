// Reads the configured corridors file once per process. The rules of a
// corridor table live in domain/corridors.ts; this is only the file I/O, kept
// at the edge so the domain stays pure.
import fs from 'node:fs';
import { CorridorFileError, parseCorridors, type CorridorTable } from './domain/corridors.ts';

const loaded = new Map<string, CorridorTable>();

/** Reads and checks a corridors file once per process; later calls reuse it. */
export function loadCorridors(file: string): CorridorTable {
  const cached = loaded.get(file);
  if (cached !== undefined) return cached;
  let document: unknown;
  try {
    document = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CorridorFileError(file, [`cannot read it as JSON: ${(error as Error).message}`]);
  }
  const table = parseCorridors(document, file);
  loaded.set(file, table);
  return table;
}
