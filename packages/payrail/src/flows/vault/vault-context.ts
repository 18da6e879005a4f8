// What the stored-payment-data flows use of the service. Routes and jobs
// hand the service itself, so none of them assembles a bag of dependencies.
import type { CardCipher } from '../../crypto/card-cipher.ts';
import { cardCipherFor } from '../../crypto/card-key.ts';
import type { Service } from '../../service.ts';

export type VaultContext = Pick<Service, 'db' | 'clock' | 'config'>;

/** The card-data cipher (one per key source and process, cached by cardCipherFor). */
export function cipherOf(vault: Pick<VaultContext, 'config'>): CardCipher {
  return cardCipherFor(vault.config);
}
