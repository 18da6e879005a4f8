// A key provider holds the key-encryption key (KEK) that wraps Payrail's
// card-data keys (envelope encryption): the data keys live in the database
// only wrapped, and only the provider can unwrap them. The provider never
// sees card data, only 32-byte data keys, once per key and process.
//
// Providers get their own settings and nothing else (no database): the
// key ring that stores wrapped keys is flows/card-keys.

/** What a provider needs to bind a wrapped key to its place: the data key's id. */
export interface WrapContext {
  readonly keyId: number;
}

export interface KeyProvider {
  /** Short name recorded beside each wrapped key ("local", "vault"); a key is unwrapped by the provider that wrapped it. */
  readonly name: string;
  /** The data key encrypted under the KEK, as text safe to store. */
  wrap(dataKey: Buffer, context: WrapContext): Promise<string>;
  /** The data key back; throws when the text was not wrapped by this KEK for this key id. */
  unwrap(wrapped: string, context: WrapContext): Promise<Buffer>;
  /**
   * The same data key wrapped under the provider's newest KEK version (after
   * the KEK itself was rotated); the plaintext key never leaves the provider
   * when it can rewrap in place (Vault's transit rewrap).
   */
  rewrap(wrapped: string, context: WrapContext): Promise<string>;
}

/** Size of every data key: AES-256. */
export const DATA_KEY_BYTES = 32;
