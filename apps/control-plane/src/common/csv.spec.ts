import { csvCell, csvLine } from './csv';

describe('CSV cells', () => {
  it('neutralises text that a spreadsheet would run as a formula', () => {
    expect(['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tx', 'ok', 'a-b'].map(csvCell)).toEqual([
      "'=1+1",
      "'+SUM(A1)",
      "'-2+3",
      "'@cmd",
      "'\tx",
      'ok',
      'a-b',
    ]);
  });

  it('quotes cells with quotes, commas or line breaks, and writes numbers as they are', () => {
    expect(csvLine(['a,b', 'say "hi"', 'x\ny', -1.5, null, { a: 1 }])).toBe('"a,b","say ""hi""","x\ny",-1.5,,"{""a"":1}"');
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
  });
});
