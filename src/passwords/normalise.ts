/**
 * How passwords are measured and compared. Length is counted on the NFKC form, the form the
 * hasher hashes (src/hashing/password.ts), one per code point (NIST SP 800-63B-4 §3.1.1.2: "each
 * Unicode code point SHALL be counted as a single character"). Lists and context words are
 * compared on that form case-folded, so `PASSWORD1`, `Password1` and the full-width `ＰＡＳＳＷＯＲＤ１`
 * all match `password1`.
 */

/** The form that is hashed and whose length counts. */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * NFKC, then case folded. JavaScript has no full case folding; upper- then lower-casing comes
 * close (`ß` becomes `ss`, final `ς` becomes `σ`), and NFKC again puts back any composition
 * the case mapping undid. The list and the input go through this same function, so whatever it
 * maps, both sides map alike.
 */
export function foldForComparison(text: string): string {
  return text.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

/** Unicode code points (a surrogate pair is one; a combining mark is one of its own). */
export function codePointCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
