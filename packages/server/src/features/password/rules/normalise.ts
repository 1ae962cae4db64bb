/**
 * How passwords are measured and compared. The hasher hashes the NFKC form (packages/passlane/src/password.ts),
 * every code point of it. What counts towards the minimum length, and what is compared with the
 * blocklist, the context words and the breach corpus, is the counted form: the NFKC form without
 * the characters that do not make a password any harder to guess (README.md here, "What counts"):
 * default-ignorable code points (zero-width spaces and joiners, the soft hyphen, variation
 * selectors, bidi controls, the byte-order mark), controls, and combining marks with no base to
 * sit on. Each code point left counts as one (NIST SP 800-63B-4 §3.1.1.2: "each Unicode code point
 * SHALL be counted as a single character"), and a counted form of only whitespace counts as none.
 * Comparisons also case-fold, so `PASSWORD1`, `Pass\u200Bword1` and the full-width `ＰＡＳＳＷＯＲＤ１`
 * all match `password1`.
 */

/** The form that is hashed and whose length counts. */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * The counted form (NFKC, then `countedForm`), case folded. JavaScript has no full case folding;
 * upper- then lower-casing comes close (`ß` becomes `ss`, final `ς` becomes `σ`), and NFKC again
 * puts back any composition the case mapping undid. The list and the input go through this same
 * function, so whatever it maps, both sides map alike.
 */
export function foldForComparison(text: string): string {
  return foldCounted(countedForm(text.normalize('NFKC')));
}

/** `foldForComparison` of a text already in the counted form. */
export function foldCounted(counted: string): string {
  return counted.toUpperCase().toLowerCase().normalize('NFKC');
}

/** One scan for what `countedForm` may remove: most passwords hold none, and skip its replacing (login runs this). */
const MAY_HOLD_UNCOUNTED = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{M}]/u;
/** Default-ignorable code points and controls: never shown as a character of their own. */
const UNCOUNTED = /[\p{Default_Ignorable_Code_Point}\p{Cc}]+/gu;
/**
 * Combining marks with no base (Unicode's defective combining sequence): at the start, or after
 * a character that is not graphic. A space is a base: space + mark is how Unicode shows an accent
 * by itself, and what NFKC makes of a spacing accent (`´` is space + U+0301).
 */
const MARKS_ALONE = /(?<![\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}])\p{M}+/gu;
const NOT_WHITESPACE = /[^\p{White_Space}]/u;

/**
 * An NFKC form without default-ignorables, controls and combining marks with no base; NFKC again
 * if anything went, since `e` + zero-width space + acute becomes `e` + acute, which composes.
 */
export function countedForm(normalised: string): string {
  if (!MAY_HOLD_UNCOUNTED.test(normalised)) return normalised;
  const counted = normalised.replace(UNCOUNTED, '').replace(MARKS_ALONE, '');
  return counted === normalised ? normalised : counted.normalize('NFKC');
}

/** The length the minimum applies to: the counted form's code points, none if it is only whitespace. */
export function countedLength(counted: string): number {
  return NOT_WHITESPACE.test(counted) ? codePointCount(counted) : 0;
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
