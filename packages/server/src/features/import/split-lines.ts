/** A physical line of a text file, 1-based, without its line terminator. */
export interface TextLine {
  line: number;
  text: string;
  /** Longer than the cap: `text` holds only the first `maxChars` characters. */
  tooLong: boolean;
}

/**
 * Splits decoded text chunks into lines (LF or CRLF), keeping memory bounded: a line past
 * `maxChars` is cut and flagged instead of growing without limit (readline has no cap).
 */
export async function* splitLines(chunks: AsyncIterable<string>, maxChars: number): AsyncGenerator<TextLine> {
  let line = 1;
  let current = '';
  let tooLong = false;
  const append = (text: string) => {
    if (tooLong) return;
    current += text;
    if (current.length > maxChars) {
      current = current.slice(0, maxChars);
      tooLong = true;
    }
  };
  for await (const chunk of chunks) {
    let from = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0; newline = chunk.indexOf('\n', from)) {
      append(chunk.slice(from, newline));
      yield { line: line++, text: current.endsWith('\r') ? current.slice(0, -1) : current, tooLong };
      current = '';
      tooLong = false;
      from = newline + 1;
    }
    append(chunk.slice(from));
  }
  if (current !== '' || tooLong) yield { line, text: current, tooLong };
}
