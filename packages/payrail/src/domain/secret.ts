// A box for card data and other secrets. Whatever path a value takes by
// accident (a log call, JSON.stringify, util.inspect, string interpolation),
// the box prints as "[redacted]"; only an explicit reveal() opens it. Code
// that must see the value says so in one greppable word.

const REDACTED = '[redacted]';
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

export class Secret<T> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  reveal(): T {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [INSPECT](): string {
    return `Secret(${REDACTED})`;
  }
}
