import { canonicalJson, ChainWalk, GENESIS_HASH, rowHash, type ChainedRow } from '../../src/domain/admin-log';

/** A chain of `n` well-formed rows. */
function chain(n: number): ChainedRow[] {
  const rows: ChainedRow[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i += 1) {
    const content = { seq: BigInt(i), at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), adminId: null, action: 'admin.login', target: null, requestId: `r${i}`, ip: '127.0.0.1', details: { n: i } };
    const hash = rowHash(prev, content);
    rows.push({ ...content, prevHash: prev, hash });
    prev = hash;
  }
  return rows;
}

describe('the admin log chain', () => {
  it('writes the same content as the same bytes, whatever the order of its keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[2,{"e":null,"f":1}]},"b":1}');
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it('holds for a well-formed chain fed in batches, and ends at its last hash', () => {
    const rows = chain(5);
    const walk = new ChainWalk();
    walk.next(rows.slice(0, 2));
    walk.next(rows.slice(2));
    expect(walk.verdict()).toEqual({ ok: true, rows: 5, head: rows[4]!.hash });
  });

  it('names the first row that does not fit: an edit, a deletion, an insertion, a swap', () => {
    const verdictOf = (rows: ChainedRow[]) => {
      const walk = new ChainWalk();
      walk.next(rows);
      return walk.verdict();
    };
    const edited = chain(5);
    edited[2] = { ...edited[2]!, details: { n: 99 } };
    expect(verdictOf(edited)).toMatchObject({ ok: false, seq: 3n, problem: expect.stringMatching(/hash does not match/) });
    const deleted = chain(5).filter((r) => r.seq !== 3n);
    expect(verdictOf(deleted)).toMatchObject({ ok: false, seq: 4n, problem: expect.stringMatching(/where 3 was expected/) });
    const rows = chain(5);
    const inserted = [...rows.slice(0, 2), { ...rows[1]!, seq: 3n }, ...rows.slice(2).map((r) => ({ ...r, seq: r.seq + 1n }))];
    expect(verdictOf(inserted)).toMatchObject({ ok: false, seq: 3n, problem: expect.stringMatching(/prev_hash/) });
    const swapped = chain(5);
    [swapped[1], swapped[2]] = [{ ...swapped[2]!, seq: 2n }, { ...swapped[1]!, seq: 3n }];
    expect(verdictOf(swapped)).toMatchObject({ ok: false, seq: 2n, problem: expect.stringMatching(/prev_hash/) });
  });
});
