// The one home of secret settings: a connector's key is given either in its
// variable (PAYRAIL_X_KEY) or as a file holding it (PAYRAIL_X_KEY_FILE, as
// container platforms mount secrets), and comes back in a Secret box, so no
// log line, error or JSON of the configuration ever prints it. Problems name
// the variable and the file, never the value.
import fs from 'node:fs';
import path from 'node:path';
import { Secret } from '../domain/secret.ts';
import { settingText, type SettingsSource } from './settings-source.ts';

/** Larger files are not a key (a wrong path, a certificate bundle). */
export const SECRET_FILE_BYTES_MAX = 16 * 1024;

/**
 * The secret named `name`, from `name` or from the file `name_FILE` names;
 * null when neither is set (a problem too when `requiredFor` says why it
 * is needed). One trailing line break of a file is dropped: editors and
 * `echo` add one, and no key ends with one.
 */
export function secretSetting(source: SettingsSource, name: string, requiredFor: string | null): Secret<string> | null {
  const value = settingText(source, name);
  const file = settingText(source, `${name}_FILE`);
  if (value !== null && file !== null) {
    source.problems.push(`${name} and ${name}_FILE are both set; set one of them`);
    return null;
  }
  if (value !== null) return new Secret(value);
  if (file !== null) return secretFromFile(source, `${name}_FILE`, path.resolve(source.baseDir, file));
  if (requiredFor !== null) source.problems.push(`${name} (or ${name}_FILE, a file holding it) is required ${requiredFor}`);
  return null;
}

function secretFromFile(source: SettingsSource, variable: string, file: string): Secret<string> | null {
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      source.problems.push(`${variable} must name a file, got ${file}`);
      return null;
    }
    if (stat.size > SECRET_FILE_BYTES_MAX) {
      source.problems.push(`${variable} names a file of ${stat.size} bytes (${file}); a key file holds at most ${SECRET_FILE_BYTES_MAX}`);
      return null;
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    source.problems.push(`${variable} names a file that cannot be read (${file}): ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    return null;
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '' || /[\r\n]/.test(secret)) {
    source.problems.push(`${variable} must name a file holding the key on one line (${file})`);
    return null;
  }
  return new Secret(secret);
}
