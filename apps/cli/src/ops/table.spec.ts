import { renderFields, renderTable } from './table';

describe('renderTable', () => {
  const rows = [
    { id: 'a1', host: 'node-1', tasks: 3, share: '0.250' },
    { id: 'a22', host: 'n2', tasks: 12, share: '1.000' },
  ];
  const columns = [
    { header: 'id', value: (r: (typeof rows)[number]) => r.id },
    { header: 'hostname', value: (r: (typeof rows)[number]) => r.host },
    { header: 'tasks', value: (r: (typeof rows)[number]) => r.tasks },
    { header: 'share', value: (r: (typeof rows)[number]) => r.share, align: 'right' as const },
  ];

  it('aligns columns two spaces apart under capitalised headers, numbers to the right, no trailing blanks', () => {
    expect(renderTable(columns, rows).split('\n')).toEqual([
      'ID   HOSTNAME  TASKS  SHARE',
      'a1   node-1        3  0.250',
      'a22  n2           12  1.000',
    ]);
  });

  it('leaves the last left-aligned column unpadded and shows a dash for empty cells', () => {
    const out = renderTable(
      [
        { header: 'name', value: (r: { name: string; note: string | null }) => r.name },
        { header: 'note', value: (r: { name: string; note: string | null }) => r.note },
      ],
      [
        { name: 'x', note: 'a long note' },
        { name: 'longer', note: null },
      ],
    );
    expect(out.split('\n')).toEqual(['NAME    NOTE', 'x       a long note', 'longer  -']);
  });

  it('keeps each row on one line', () => {
    const out = renderTable([{ header: 'message', value: (r: { m: string }) => r.m }], [{ m: 'two\nlines\tand a tab' }]);
    expect(out.split('\n')).toEqual(['MESSAGE', 'two lines and a tab']);
  });

  it('prints the header alone for no rows', () => {
    expect(renderTable(columns, [])).toBe('ID  HOSTNAME  TASKS  SHARE');
  });
});

describe('renderFields', () => {
  it('aligns the values after the longest key', () => {
    expect(
      renderFields([
        ['ID', 'a1'],
        ['Active tasks', 3],
        ['Address', null],
      ]).split('\n'),
    ).toEqual(['ID:            a1', 'Active tasks:  3', 'Address:       -']);
  });
});
