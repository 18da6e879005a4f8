// JSON read with each number kept as the text it was written as. Open
// Exchange Rates sends rates as JSON numbers; JSON.parse would turn
// 129.50000000000000001 into the double 129.5 (and any decimal into the
// nearest binary fraction), so the exact decimal the provider wrote would be
// lost before Payrail sees it. This reader follows JSON's grammar (RFC 8259)
// and answers what JSON.parse would, except that numbers are JsonNumber
// boxes holding their source text.

/** A JSON number as written in the source ("129.250", "1.5E-7"). */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** Nesting deeper than this is not a rate table. */
const DEPTH_MAX = 32;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters; this range refuses them.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const SPACE = /[ \t\n\r]*/y;

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

/** The value `text` holds, numbers as JsonNumber; throws JsonSyntaxError on anything that is not one JSON value. */
export function parseJsonKeepingNumbers(text: string): unknown {
  let at = 0;

  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at offset ${at}`);
  };
  const space = () => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const match = (pattern: RegExp): string | null => {
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (found === null) return null;
    at = pattern.lastIndex;
    return found[0];
  };
  const expect = (char: string) => {
    space();
    if (text[at] !== char) fail(`expected ${char}`);
    at += 1;
  };

  const value = (depth: number): unknown => {
    if (depth > DEPTH_MAX) fail('nested too deep');
    space();
    const char = text[at];
    if (char === '{') {
      at += 1;
      const object: Record<string, unknown> = {};
      space();
      if (text[at] === '}') {
        at += 1;
        return object;
      }
      for (;;) {
        space();
        const key = match(STRING) ?? fail('expected a key');
        expect(':');
        // Defined, not assigned: a key "__proto__" is data, as JSON.parse makes it.
        Object.defineProperty(object, JSON.parse(key) as string, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        space();
        if (text[at] === ',') {
          at += 1;
          continue;
        }
        expect('}');
        return object;
      }
    }
    if (char === '[') {
      at += 1;
      const array: unknown[] = [];
      space();
      if (text[at] === ']') {
        at += 1;
        return array;
      }
      for (;;) {
        array.push(value(depth + 1));
        space();
        if (text[at] === ',') {
          at += 1;
          continue;
        }
        expect(']');
        return array;
      }
    }
    if (char === '"') return JSON.parse(match(STRING) ?? fail('a broken string')) as string;
    for (const [literal, meaning] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return meaning;
      }
    }
    const number = match(NUMBER);
    if (number !== null) return new JsonNumber(number);
    return fail('expected a value');
  };

  // A byte order mark is not JSON, but some servers send one; it carries nothing.
  if (text.charCodeAt(0) === 0xfeff) at = 1;
  const result = value(0);
  space();
  if (at !== text.length) fail('text after the value');
  return result;
}
