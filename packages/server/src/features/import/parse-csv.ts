/** One CSV record: its fields, the line it starts on, and its text as read (for the rejects file). */
export interface CsvRecord {
  line: number;
  fields: string[];
  raw: string;
  /** Set when the record breaks RFC 4180; `fields` is then incomplete. */
  error?: 'unterminated-quote' | 'stray-quote' | 'too-long';
}

/**
 * A small streaming RFC 4180 parser (no CSV library is installed, and this is all import needs):
 * comma-separated, fields optionally in double quotes, `""` for a quote inside quotes, commas and
 * line breaks allowed inside quotes, CRLF or LF between records. A quote inside an unquoted field
 * or text after a closing quote is an error for that record only; parsing resumes at the next
 * line break outside quotes. Records longer than `maxChars` are flagged instead of buffered.
 */
export async function* parseCsv(chunks: AsyncIterable<string>, maxChars: number): AsyncGenerator<CsvRecord> {
  let line = 1;
  let startLine = 1;
  let fields: string[] = [];
  let field = '';
  let raw = '';
  let inQuotes = false;
  let afterQuote = false; // a quoted field just closed: only a comma or a line break may follow
  let fieldWasQuoted = false;
  let error: CsvRecord['error'];
  let pendingQuote = false; // inside quotes, a quote that may be the first of a `""` pair
  let pendingCr = false;

  const take = (char: string) => {
    if (error === 'too-long') return;
    raw += char;
    if (raw.length > maxChars) error = 'too-long';
  };
  const endRecord = (): CsvRecord | undefined => {
    fields.push(field);
    const record: CsvRecord = { line: startLine, fields, raw: error === 'too-long' ? raw.slice(0, maxChars) : raw };
    if (error) record.error = error;
    const blank = !error && fields.length === 1 && field === '' && !fieldWasQuoted;
    fields = [];
    field = '';
    raw = '';
    error = undefined;
    afterQuote = false;
    fieldWasQuoted = false;
    startLine = line;
    return blank ? undefined : record;
  };

  for await (const chunk of chunks) {
    for (const char of chunk) {
      if (pendingQuote) {
        pendingQuote = false;
        if (char === '"') {
          if (error !== 'too-long') field += '"';
          take(char);
          continue;
        }
        inQuotes = false;
        afterQuote = true;
      }
      if (pendingCr) {
        pendingCr = false;
        if (char !== '\n') {
          // A lone CR is data, as in any other unquoted text.
          take('\r');
          if (!error) field += '\r';
        } else {
          line++;
          const record = endRecord();
          if (record) yield record;
          continue;
        }
      }
      if (inQuotes) {
        if (char === '"') pendingQuote = true;
        // Past the cap the record is rejected anyway: stop growing the field too, or an
        // unterminated quote would buffer the rest of the file.
        else if (error !== 'too-long') field += char;
        if (char === '\n') line++;
        take(char);
        continue;
      }
      if (char === '\r') {
        pendingCr = true;
        continue;
      }
      if (char === '\n') {
        line++;
        const record = endRecord();
        if (record) yield record;
        continue;
      }
      take(char);
      if (error) continue; // skip to the end of a broken record
      if (char === ',') {
        fields.push(field);
        field = '';
        afterQuote = false;
        fieldWasQuoted = false;
      } else if (afterQuote) {
        error = 'stray-quote';
      } else if (char === '"') {
        if (field === '' && !fieldWasQuoted) {
          inQuotes = true;
          fieldWasQuoted = true;
        } else {
          error = 'stray-quote';
        }
      } else {
        field += char;
      }
    }
  }
  if (pendingQuote) {
    inQuotes = false;
    afterQuote = true;
  }
  if (pendingCr) {
    take('\r');
    if (!error) field += '\r';
  }
  if (inQuotes) error ??= 'unterminated-quote';
  const last = endRecord();
  if (last) yield last;
}
