// JSON without rounding, written here so that the client depends on nothing: JSON.parse rounds
// integers beyond 2^53 before a reviver sees them (its source text argument is Node 21+ only).

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A string without escapes is taken as it is; any other string token goes through JSON.parse,
// which checks its escapes and refuses control characters in it.
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
const PLAIN_STRING = /"([^"\\\u0000-\u001f]*)"/y;
const STRING = /"(?:[^"\\]|\\.)*"/sy;

class ExactParser {
  private at = 0;

  constructor(private readonly text: string) {}

  document(): unknown {
    const value = this.value();
    this.space();
    if (this.at < this.text.length) this.fail();
    return value;
  }

  private value(): unknown {
    this.space();
    const char = this.text[this.at];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    const word = WORDS[char ?? ''];
    if (word !== undefined && this.text.startsWith(word[0], this.at)) {
      this.at += word[0].length;
      return word[1];
    }
    return this.number();
  }

  private object(): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    this.at++;
    if (this.next() === '}') return (this.at++, object);
    for (;;) {
      this.space();
      const key = this.string();
      if (this.next() !== ':') this.fail();
      this.at++;
      const value = this.value();
      // An own property even for "__proto__", as JSON.parse makes it; every `id` is a bigint.
      Object.defineProperty(object, key, {
        value:
          key === 'id' && typeof value === 'number' && Number.isSafeInteger(value)
            ? BigInt(value)
            : value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      if (this.close('}')) return object;
    }
  }

  private array(): unknown[] {
    const array: unknown[] = [];
    this.at++;
    if (this.next() === ']') return (this.at++, array);
    for (;;) {
      array.push(this.value());
      if (this.close(']')) return array;
    }
  }

  /** After a member: true at the closing bracket, false after a comma. */
  private close(bracket: string): boolean {
    const char = this.next();
    this.at++;
    if (char === bracket) return true;
    if (char !== ',') this.fail(this.at - 1);
    return false;
  }

  private string(): string {
    PLAIN_STRING.lastIndex = this.at;
    const plain = PLAIN_STRING.exec(this.text);
    if (plain === null) return JSON.parse(this.match(STRING)) as string;
    this.at = PLAIN_STRING.lastIndex;
    return plain[1]!;
  }

  // An integer a double cannot hold exactly becomes a bigint; every other number stays a number.
  private number(): number | bigint {
    const text = this.match(NUMBER);
    const number = Number(text);
    return /[.eE]/.test(text) || Number.isSafeInteger(number) ? number : BigInt(text);
  }

  private match(pattern: RegExp): string {
    pattern.lastIndex = this.at;
    const found = pattern.exec(this.text);
    if (found === null) this.fail();
    this.at = pattern.lastIndex;
    return found[0];
  }

  private next(): string | undefined {
    this.space();
    return this.text[this.at];
  }

  private space(): void {
    let code = this.text.charCodeAt(this.at);
    // Space, tab, line feed, carriage return.
    while (code === 32 || code === 9 || code === 10 || code === 13) {
      code = this.text.charCodeAt(++this.at);
    }
  }

  private fail(at = this.at): never {
    throw new SyntaxError(`Unexpected JSON at position ${at}`);
  }
}

const WORDS: Record<string, readonly [string, boolean | null]> = {
  t: ['true', true],
  f: ['false', false],
  n: ['null', null],
};

/** JSON.parse without rounding: unsafe integers and every `id` become bigints. */
export const parseExactJson = (text: string): unknown => new ExactParser(text).document();

/** JSON.stringify that writes bigints as exact JSON integers. */
export function stringifyExactJson(value: unknown): string {
  return write(value) ?? 'null';
}

function write(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if ('toJSON' in value && typeof value.toJSON === 'function') return write(value.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const members = Object.entries(value).flatMap(([key, item]) => {
    const text = write(item);
    return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`];
  });
  return `{${members.join(',')}}`;
}
