import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { parseCsv } from '../../src/devices/csv';
import { rowsFromCsv } from '../../src/devices/import-input';

describe('CSV of a device import', () => {
  describe('parseCsv', () => {
    it('reads quoted cells with commas, doubled quotes and line breaks, CRLF or LF, and skips empty lines', () => {
      const text = '\uFEFFa,b\r\n"x, y","say ""hi"""\n\n"two\nlines",\n';

      expect(parseCsv(text)).to.deep.equal([
        { cells: ['a', 'b'], line: 1 },
        { cells: ['x, y', 'say "hi"'], line: 2 },
        { cells: ['two\nlines', ''], line: 4 },
      ]);
    });

    it('refuses an unclosed quote and a stray one with INVALID_BODY naming the line', () => {
      expect(() => parseCsv('a\n"open')).to.throw(AppError, /line 2: a quoted cell is never closed/);
      expect(() => parseCsv('a\nx"y')).to.throw(AppError, /line 2: a quote inside a cell/);
      expect(() => parseCsv('"a"b')).to.throw(AppError, /line 1: text after a quoted cell/);
    });
  });

  describe('rowsFromCsv', () => {
    it('maps columns in any case, clientid to deviceid, true/false and digits to their types, empty cells to nothing', () => {
      const rows = rowsFromCsv('ClientID,Alias,projectid,groupid,enabled,livenessttl\nid-1,lamp,p,g,FALSE,60\n,porch,p,g,,\n');

      expect(rows).to.deep.equal([
        { fields: { deviceid: 'id-1', alias: 'lamp', projectid: 'p', groupid: 'g', enabled: false, livenessttl: 60 }, line: 2 },
        { fields: { alias: 'porch', projectid: 'p', groupid: 'g' }, line: 3 },
      ]);
    });

    it('refuses a header with unknown, repeated or missing columns, and marks a row with too many cells', () => {
      expect(() => rowsFromCsv('projectid,groupid,alias,colour\n')).to.throw(AppError, /unknown CSV columns: colour/);
      expect(() => rowsFromCsv('projectid,groupid,alias,clientid,deviceid\n')).to.throw(AppError, /named twice: deviceid/);
      expect(() => rowsFromCsv('projectid,alias\n')).to.throw(AppError, /lacks the columns groupid/);
      expect(() => rowsFromCsv('')).to.throw(AppError, /empty/);
      expect(rowsFromCsv('projectid,groupid,alias\np,g,a,extra\n')[0].problem).to.equal('4 cells, but the header names 3 columns');
    });
  });
});
