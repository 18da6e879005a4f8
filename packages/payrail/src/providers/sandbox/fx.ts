// Sandbox FX rates: the fixed rate each corridor lists in the corridors file.
import type { Corridor } from '../../domain/corridors.ts';
import type { FxProvider } from '../fx.ts';

export class SandboxFx implements FxProvider {
  async rate(corridor: Corridor): Promise<string> {
    return corridor.fxRate;
  }
}
