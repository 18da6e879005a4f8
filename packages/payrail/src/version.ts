// The version of this package, read once from its package.json (beside src/
// in the repository, beside dist/ when installed): `payrail --version`.
import fs from 'node:fs';
import path from 'node:path';

export const PAYRAIL_VERSION = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
