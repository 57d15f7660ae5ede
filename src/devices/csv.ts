import { AppError } from '../core/errors';

/** One record of a CSV text and the line it starts on (1 for the first). */
export interface CsvRecord {
  cells: string[];
  line: number;
}

/**
 * Splits CSV text into records as RFC 4180 writes them: cells separated by commas, records by CRLF or LF, a cell in
 * double quotes may hold commas, line breaks and doubled quotes. A byte-order mark (spreadsheets write one) is
 * dropped, and so are empty lines. A stray or unclosed quote is INVALID_BODY naming its line.
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let wasQuoted = false;
  const endCell = () => {
    cells.push(cell);
    cell = '';
    wasQuoted = false;
  };
  const endRecord = () => {
    endCell();
    if (cells.length > 1 || cells[0] !== '') records.push({ cells, line: start });
    cells = [];
  };
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
    } else if (c === '"') {
      if (cell !== '' || wasQuoted) throw new AppError('INVALID_BODY', `CSV line ${line}: a quote inside a cell that does not start with one`);
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      endCell();
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else {
      if (wasQuoted) throw new AppError('INVALID_BODY', `CSV line ${line}: text after a quoted cell's closing quote`);
      cell += c;
    }
  }
  if (quoted) throw new AppError('INVALID_BODY', `CSV line ${start}: a quoted cell is never closed`);
  endRecord();
  return records;
}
