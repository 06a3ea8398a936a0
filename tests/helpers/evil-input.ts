import fc from 'fast-check';

/**
 * Arbitraries for hostile request input: strings no form would produce, values of every JSON
 * type, prototype-polluting keys, operator objects, and numbers at and past every limit.
 */

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Strings that have broken parsers, databases and renderers before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n\r',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ud83d\ude00',
  '\u202eevil\u202c',
  'مرحبا',
  'a\u200bb',
  '\ufeff',
  '\u00a0',
  'e\u0301',
  '𝕏𝕐',
  '👩‍👩‍👧',
  '\u2028\u2029',
  "' OR 1=1 --",
  '"; drop table users; --',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  '%s%n',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-Infinity',
  '__proto__',
  'constructor',
  'x'.repeat(5000),
];

export const evilString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: loneSurrogate, minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('\u0000', '\u200b', '\u202e', '\u0301', 'a', '1', '.', '@', '-'), maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 300 }) },
);

/** Every kind of amount a client could send wrong, as JSON source text. */
export const AMOUNT_SOURCES = [
  '0',
  '-0',
  '-1',
  '0.00000001',
  '1e-8',
  '0.12345678',
  '922337203685.4775808',
  '922337203685.4775807',
  '922337203686',
  '9223372036854775807',
  '1e308',
  '-1e308',
  '1e400',
  '5e-324',
  '9007199254740993',
  '"922337203685.4775808"',
  '"0"',
  '"-0"',
  '"0.0000000"',
  '"NaN"',
  '"Infinity"',
  '"-1"',
  '"1e3"',
  '"0x10"',
  '"1_000"',
  '"１２"',
  '"١٢"',
  '"1,5"',
  '"+1"',
  '".5"',
  '"5."',
  '" "',
  '""',
  'null',
  'true',
  '[]',
  '[1]',
  '{}',
  '{"$gt": ""}',
  '{"$ne": null}',
  '"1.005"',
  '1.005',
  '100000000000.01',
  '100000000001',
];

const jsonScalar = fc.oneof(
  evilString.map((s) => JSON.stringify(s)),
  fc.constantFrom(...AMOUNT_SOURCES),
  fc.double({ noNaN: true }).map((n) => JSON.stringify(n)),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
);

/** Keys that pollute prototypes or sneak operators into queries. */
export const EVIL_KEYS = ['__proto__', 'constructor', 'prototype', '$where', '$gt', '', ' ', 'a\u0000', '\ud800', 'toString', 'hasOwnProperty'];

/** Any JSON value, as source text (so `__proto__` keys and duplicate keys survive). */
export const evilJson: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonScalar,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...EVIL_KEYS), evilString), tie('value')), { maxLength: 4 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).value;

/** Bodies past the JSON parser's sense: deep nesting, huge strings, over the 100 kB limit. */
export const MONSTER_BODIES = [
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`,
  JSON.stringify({ amount: 'x'.repeat(99_000) }),
  JSON.stringify({ pad: 'x'.repeat(200_000) }),
  '{"amount":1,"amount":-1}',
  '{',
  '"just a string"',
  '12',
  'null',
  '[]',
];

export type Entries = [string, string][];

/** A JSON object, as source text, from its entries (each value already JSON text). */
export const objectSource = (entries: Entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

/**
 * Bodies built from a valid-looking base: one field replaced, removed, or joined by an evil key;
 * the fields of the base swapped for evil values; or something that is not the base at all.
 */
export function mutatedBody(base: Record<string, unknown>, fieldValues: Partial<Record<string, fc.Arbitrary<string>>> = {}): fc.Arbitrary<string> {
  const entries: Entries = Object.entries(base).map(([k, v]) => [k, JSON.stringify(v)]);
  const keys = Object.keys(base);
  const evilText = evilString.map((v) => JSON.stringify(v));
  const valueFor = (key: string) => {
    const special = fieldValues[key];
    return special ? fc.oneof(special, evilText, evilJson) : fc.oneof(evilText, evilJson);
  };
  const replaced =
    keys.length === 0
      ? fc.constant(objectSource(entries))
      : fc
          .constantFrom(...keys)
          .chain((key) => valueFor(key).map((value) => objectSource(entries.map(([k, v]) => [k, k === key ? value : v]))));
  const removed = keys.length === 0 ? fc.constant('{}') : fc.constantFrom(...keys).map((key) => objectSource(entries.filter(([k]) => k !== key)));
  const extra = fc
    .tuple(fc.oneof(fc.constantFrom(...EVIL_KEYS), evilString), evilJson)
    .map(([key, value]) => objectSource([...entries, [key, value]]));
  const allFields = fc.tuple(...keys.map((key) => valueFor(key))).map((values) => objectSource(keys.map((k, i) => [k, values[i]!])));
  return fc.oneof(
    { weight: 4, arbitrary: replaced },
    { weight: 1, arbitrary: removed },
    { weight: 2, arbitrary: extra },
    { weight: 2, arbitrary: allFields },
    { weight: 1, arbitrary: evilJson },
    { weight: 1, arbitrary: fc.constantFrom(...MONSTER_BODIES) },
  );
}

/** Amounts, as JSON source text, that must all be refused (plus random numbers and strings). */
export const evilAmount: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...AMOUNT_SOURCES) },
  { weight: 1, arbitrary: fc.double().map((n) => JSON.stringify(n)) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1e-7, noNaN: true }).map((n) => JSON.stringify(n)) },
  { weight: 1, arbitrary: evilString.map((s) => JSON.stringify(s)) },
);

/**
 * Percent-encodes a string for a URL path segment or query; unpaired surrogates become their
 * three-byte (CESU-8) form, which is not valid UTF-8, as a hostile client would send them.
 */
export function percentEncode(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(value[i]!);
    }
  }
  return out;
}

/** Raw path segments sent as they are: broken escapes, traversal, encoded separators. */
export const RAW_SEGMENTS = ['%', '%zz', '%ED%A0%80', '%FF', '%00', '%2F', '..', '.', '%2e%2e', 'a%2Fb', '%C0%AF', '%u0041', '%E2%80%AE'];

/** A path parameter: a well-formed value given by the route, an evil string, or a raw segment. */
export function evilSegment(good: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: good.map(percentEncode) },
    { weight: 3, arbitrary: evilString.filter((s) => percentEncode(s).length < 3000).map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  );
}

/** Raw query strings: random pairs, repeated keys, bracket syntax, broken escapes. */
export function evilQuery(knownKeys: string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...knownKeys, ...EVIL_KEYS), evilString.filter((s) => s.length < 100));
  const value = fc.oneof(
    evilString.filter((s) => s.length < 200),
    fc.constantFrom('0', '-1', '1', '1000', '1001', '1e3', '0x10', '10000001', '1.5', ' ', ''),
  );
  const pairs = fc
    .array(fc.tuple(key, value), { maxLength: 4 })
    .map((list) => list.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&'));
  const raw = fc.constantFrom(
    'limit[]=1',
    'limit=1&limit=2',
    'limit[$gt]=0',
    '__proto__[x]=1',
    'constructor[prototype][x]=1',
    '%',
    'limit=%FF',
    'offset=%ED%A0%80',
    'limit',
    '&&&',
    '=1',
    `limit=${'9'.repeat(400)}`,
  );
  return fc.oneof({ weight: 3, arbitrary: pairs }, { weight: 1, arbitrary: raw });
}

/** Content types a body may come with; most are JSON. */
export const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16le',
      'application/json; charset=latin1',
      'application/vnd.api+json',
      'multipart/form-data; boundary=x',
      'application/xml',
    ),
  },
);

/** Idempotency-Key header values that break its format (a valid key would store the answer). */
export const badIdempotencyKey = fc.oneof(
  fc.constantFrom('', ' ', 'a b', 'k'.repeat(201), 'key;drop', '\u00e9t\u00e9', '../x', '{"$gt":""}'),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  // HTTP trims a header's surrounding spaces: ' 0' arrives as '0', a valid key. Only values that
  // stay invalid once trimmed are kept.
).filter((s) => !/^[A-Za-z0-9_.:-]{1,200}$/.test(s.trim()));
