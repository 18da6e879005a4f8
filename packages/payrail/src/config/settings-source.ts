// What a connector's settings are read from: the environment, the list of
// problems configuration collects (every bad value is reported at start,
// together, each with its variable name), the directory relative file names
// start from and the deployment's environment.
import type { Environment } from '../domain/credentials.ts';

export interface SettingsSource {
  readonly env: NodeJS.ProcessEnv;
  readonly problems: string[];
  /** Where a relative `..._FILE` name starts (where the operator ran the command). */
  readonly baseDir: string;
  readonly environment: Environment;
}

/** A variable's value, or null when unset or empty. */
export function settingText(source: SettingsSource, name: string): string | null {
  const raw = source.env[name];
  return raw === undefined || raw === '' ? null : raw;
}
