// An accept.blue webhook's signing secret in accept.blue's form: 32
// alphanumeric characters (observed on accept.blue's Webhook objects), no
// prefix, from the CSPRNG.
import { ACCEPTBLUE_SECRET_LENGTH } from '../../domain/acceptblue-webhooks.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { Secret } from '../../domain/secret.ts';

export const newAcceptBlueSecret = (): Secret<string> => new Secret(randomBase62(ACCEPTBLUE_SECRET_LENGTH));
