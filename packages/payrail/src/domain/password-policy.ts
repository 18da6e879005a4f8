// What a panel password must be (PCI DSS 8.3.6): at least 12 characters, not
// one of the passwords attackers try first, not built on the user's e-mail,
// and not a single character or two repeated. A well-kept strength estimator
// (zxcvbn-ts) ships megabytes of dictionaries for a check that runs only
// when an operator sets a password from the CLI, so this is a short list of
// the most common long passwords and patterns instead.

export const PASSWORD_LENGTH_MIN = 12;
export const PASSWORD_LENGTH_MAX = 200;
/** Fewer distinct characters than this is a pattern ("aaaaaaaaaaaa", "abababababab"), not a password. */
const DISTINCT_CHARACTERS_MIN = 5;

/** Passwords of 12 or more characters found at the top of published breach lists, compared lower-cased. */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '1234567891011',
  '111111111111',
  '000000000000',
  '123123123123',
  '121212121212',
  '987654321098',
  'qwertyuiopas',
  'qwertyuiop123',
  'qwerty123456',
  '1qaz2wsx3edc',
  '1q2w3e4r5t6y',
  'q1w2e3r4t5y6',
  'zaq12wsxcde3',
  'asdfghjkl123',
  'passwordpassword',
  'password1234',
  'password12345',
  'password123456',
  'password123!',
  'passw0rd1234',
  'p@ssw0rd1234',
  'p@ssword1234',
  'iloveyou1234',
  'iloveyouiloveyou',
  'letmein12345',
  'welcome12345',
  'welcome123456',
  'administrator',
  'administrator1',
  'admin1234567',
  'adminadmin123',
  'changeme1234',
  'changemenow!',
  'trustno1trustno1',
  'football1234',
  'baseball1234',
  'sunshine1234',
  'princess1234',
  'monkey123456',
  'dragon123456',
  'starwars1234',
  'whatever1234',
  'superman1234',
  'qwertyqwerty',
  'abcdefghijkl',
  'abcdef123456',
  'abc123abc123',
  'aa12345678910',
  'payrail12345',
  'payrailpayrail',
]);

/** Why a password is refused, in words for the person choosing it, or null when it is acceptable. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < PASSWORD_LENGTH_MIN || password.length > PASSWORD_LENGTH_MAX) {
    return `password must be ${PASSWORD_LENGTH_MIN} to ${PASSWORD_LENGTH_MAX} characters`;
  }
  const lower = password.normalize('NFKC').toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return 'password is one of the most common passwords; choose another';
  if (new Set(lower).size < DISTINCT_CHARACTERS_MIN) return `password must use at least ${DISTINCT_CHARACTERS_MIN} different characters`;
  const local = email.toLowerCase().split('@')[0] ?? '';
  if (local.length >= 4 && lower.includes(local)) return 'password must not contain the e-mail address';
  return null;
}
