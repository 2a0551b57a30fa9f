import { parseResources, parseResourcesInput, ResourceParseError, Resources, resourcesFromJSON } from '.';

describe('parseResources (Mesos text form)', () => {
  it.each([
    ['cpus:4;mem:8192', { cpus: 4, mem: 8192 }],
    ['cpus:0.5; mem:32', { cpus: 0.5, mem: 32 }],
    ['cpus:1;cpus:2', { cpus: 3 }],
    ['cpus(eng):2;cpus:1', { cpus: 3 }],
  ])('%s has quantities %j', (text, quantities) => {
    expect(Object.fromEntries(parseResources(text).scalarQuantities())).toEqual(quantities);
  });

  it('parses ranges, merging overlapping and adjacent ones', () => {
    const r = parseResources('ports:[31000-32000,32001-32005, 100-200]');
    expect(r.entries()).toEqual([
      {
        name: 'ports',
        ranges: [
          [100, 200],
          [31000, 32005],
        ],
      },
    ]);
  });

  it('parses sets and reservations and prints them back', () => {
    const text = 'cpus:4;cpus(eng/ml):2;mem:8192;ports:[31000-32000];zones:{a,b}';
    const r = parseResources(text);
    expect(r.reserved('eng/ml').get('cpus')).toBe(2);
    expect(parseResources(r.toString()).equals(r)).toBe(true);
    expect(r.toString()).toBe('cpus:4;cpus(eng/ml):2;mem:8192;ports:[31000-32000];zones:{a,b}');
  });

  it.each([
    ['cpus:abc', "invalid scalar value 'abc' for 'cpus' at position 5"],
    ['cpus:-1', "invalid scalar value '-1' for 'cpus' at position 5"],
    ['cpus', "expected 'name:value' at position 0"],
    ['cpus:1;mem:1;ports:[5-1]', 'begin is greater than end'],
    ['ports:[1-2', "unterminated range list for 'ports'"],
    ['ports:[a-b]', "invalid range 'a-b'"],
    ['cpus(a b):1', "invalid role 'a b'"],
    ['9cpus:1', "invalid resource name '9cpus'"],
    ['cpus:1e20', "invalid scalar value '1e20'"],
    ['cpus:9999999999999', 'larger than'],
  ])('rejects %s', (text, message) => {
    expect(() => parseResources(text)).toThrow(ResourceParseError);
    expect(() => parseResources(text)).toThrow(message);
  });

  it('ignores empty pieces', () => {
    expect(parseResources(' ; cpus:1 ;').get('cpus')).toBe(1);
    expect(parseResources('').isEmpty()).toBe(true);
  });
});

describe('resourcesFromJSON', () => {
  it('reads the shorthand object', () => {
    const r = resourcesFromJSON({ cpus: 2, mem: 1024, ports: [[31000, 32000]] });
    expect(r.entries()).toEqual([
      { name: 'cpus', value: 2 },
      { name: 'mem', value: 1024 },
      { name: 'ports', ranges: [[31000, 32000]] },
    ]);
  });

  it('reads the entry list with reservations, revocable and shared pieces', () => {
    const r = resourcesFromJSON([
      { name: 'cpus', value: 1 },
      { name: 'cpus', value: 100, reservation: 'role1' },
      { name: 'cpus', value: 10, revocable: true },
      { name: 'disk', value: 100, reservation: 'role1', shared: true, volume: 'id1' },
      { name: 'disk', value: 100, reservation: 'role1', shared: true, volume: 'id1' },
    ]);
    // cpus: 1 + 100 + 10 = 111; disk: one shared volume of 100 counts once whatever the copies.
    expect(Object.fromEntries(r.scalarQuantities())).toEqual({ cpus: 111, disk: 100 });
    expect(r.shared().entries()).toHaveLength(2);
    expect(r.revocable().get('cpus')).toBe(10);
    expect(r.unreserved().nonRevocable().get('cpus')).toBe(1);
  });

  it('drops zero scalars', () => {
    expect(resourcesFromJSON({ cpus: 1, disk: 0 }).names()).toEqual(new Set(['cpus']));
  });

  it.each([
    [null, 'resources must be an object'],
    [{ cpus: 'x' }, "invalid value for 'cpus'"],
    [{ cpus: -2 }, "invalid scalar value '-2' for 'cpus'"],
    [{ cpus: Number.NaN }, 'not a finite number'],
    [[{ name: 'cpus' }], 'give exactly one of value, ranges or set'],
    [[{ name: 'cpus', value: 1, reservation: '../x' }], "invalid role '../x'"],
    [{ ports: [[1, 2, 3]] }, 'each range must be a [begin, end] pair'],
  ])('rejects %j', (value, message) => {
    expect(() => resourcesFromJSON(value)).toThrow(message);
  });

  it('parseResourcesInput takes either text or JSON', () => {
    expect(parseResourcesInput('cpus:2').equals(parseResourcesInput({ cpus: 2 }))).toBe(true);
  });
});

describe('arithmetic', () => {
  const r = (text: string) => parseResources(text);

  it('keeps three decimals exactly: 0.1 added ten times is 1', () => {
    let sum = Resources.empty();
    for (let i = 0; i < 10; i++) sum = sum.plus(r('cpus:0.1'));
    expect(sum.get('cpus')).toBe(1);
    expect(sum.equals(r('cpus:1'))).toBe(true);
  });

  it('rounds to three decimals as Mesos does', () => {
    expect(r('cpus:0.0004').isEmpty()).toBe(true);
    // 1.2345 -> 1234.5 thousandths -> 1235 -> 1.235
    expect(r('cpus:1.2345').get('cpus')).toBe(1.235);
  });

  it('subtracts per kind; reservations are a different kind', () => {
    const total = r('cpus:4;cpus(eng):2;mem:100;ports:[1-10]');
    const left = total.minus(r('cpus:1;ports:[3-4];mem:100'));
    expect(left.toString()).toBe('cpus:3;cpus(eng):2;ports:[1-2,5-10]');
    // Unreserved cpus cannot be taken from the reserved pool.
    expect(r('cpus(eng):2').minus(r('cpus:2')).get('cpus')).toBe(2);
  });

  it('never goes below zero', () => {
    expect(r('cpus:1').minus(r('cpus:5')).isEmpty()).toBe(true);
  });

  it('contains per kind, ranges and sets included', () => {
    const total = r('cpus:4;ports:[1-10];zones:{a,b}');
    expect(total.contains(r('cpus:4;ports:[2-3,7-10];zones:{a}'))).toBe(true);
    expect(total.contains(r('cpus:4.001'))).toBe(false);
    expect(total.contains(r('ports:[9-11]'))).toBe(false);
    expect(total.contains(r('zones:{c}'))).toBe(false);
    expect(total.contains(r('cpus(eng):1'))).toBe(false);
    expect(total.contains(Resources.empty())).toBe(true);
  });

  it('counts shared copies: one copy taken leaves the other', () => {
    const vol = { name: 'disk', value: 100, reservation: 'r', shared: true, volume: 'v1' };
    const two = Resources.of([vol, vol]);
    const one = two.minus(Resources.of([vol]));
    expect(one.shared().entries()).toHaveLength(1);
    expect(one.equals(two)).toBe(false);
    expect(one.minus(Resources.of([vol])).isEmpty()).toBe(true);
  });

  it('reservations for an ancestor are allocatable to descendants only', () => {
    const total = r('cpus:1;cpus(eng):2;cpus(eng/ml):3;cpus(ops):4;cpus(engineering):5');
    expect(total.allocatableTo('eng/ml/train').get('cpus')).toBe(1 + 2 + 3);
    expect(total.allocatableTo('eng').get('cpus')).toBe(1 + 2);
    expect(total.allocatableTo('ops').get('cpus')).toBe(1 + 4);
  });

  it('withReservation moves pieces between kinds', () => {
    const reserved = r('cpus:2;mem:10').withReservation('eng');
    expect(reserved.toString()).toBe('cpus(eng):2;mem(eng):10');
    expect(reserved.withReservation(undefined).equals(r('cpus:2;mem:10'))).toBe(true);
  });

  it('capScalars cuts scalars to caps, keeps or drops names without a cap, and keeps the rest', () => {
    const total = r('cpus:4;mem:1024;disk:10;ports:[1-5]');
    const caps = new Map([
      ['cpus', 1500],
      ['mem', 0],
    ]);
    expect(total.capScalars(caps, true).toString()).toBe('cpus:1.5;disk:10;ports:[1-5]');
    expect(total.capScalars(caps, false).toString()).toBe('cpus:1.5;ports:[1-5]');
    expect(total.capScalars(new Map([['cpus', 5000]]), true)).toBe(total);
    expect(total.capScalars(new Map([['cpus', -1]]), true).toString()).toBe('disk:10;mem:1024;ports:[1-5]');
  });

  it('contains, minus and plus see the same kinds as before whatever the order of the pieces', () => {
    const a = r('mem:10;cpus:2;cpus(eng):1;ports:[1-10]');
    const b = r('ports:[2-3];cpus(eng):1;cpus:1');
    expect(a.contains(b)).toBe(true);
    expect(b.contains(a)).toBe(false);
    expect(a.minus(b).toString()).toBe('cpus:1;mem:10;ports:[1-1,4-10]');
    expect(a.minus(b).plus(b).equals(a)).toBe(true);
    expect(a.contains(a)).toBe(true);
  });
});

describe('disk sources', () => {
  const mount = { name: 'disk', value: 500, source: { type: 'MOUNT' as const, root: '/mnt/d1' } };
  const path = { name: 'disk', value: 300, source: { type: 'PATH' as const, root: '/srv/d2' } };

  it('keeps PATH and MOUNT disks apart from the root disk and from each other', () => {
    const r = Resources.of([{ name: 'disk', value: 100 }, mount, path]);
    expect(r.get('disk')).toBe(900);
    expect(r.toJSON()).toEqual(expect.arrayContaining([{ name: 'disk', value: 100 }, mount, path]));
    expect(r.contains(Resources.of([{ name: 'disk', value: 200 }]))).toBe(false);
    expect(r.contains(Resources.of([{ ...path, value: 200 }]))).toBe(true);
  });

  it('uses a MOUNT disk only whole: contained only by its whole amount, never cut by a cap', () => {
    const r = Resources.of([mount]);
    expect(r.contains(Resources.of([mount]))).toBe(true);
    expect(r.contains(Resources.of([{ ...mount, value: 100 }]))).toBe(false);
    expect(r.capScalars(new Map([['disk', 200_000]]), true).isEmpty()).toBe(true);
    expect(r.capScalars(new Map([['disk', 600_000]]), true).equals(r)).toBe(true);
    expect(
      Resources.of([{ ...path }])
        .capScalars(new Map([['disk', 200_000]]), true)
        .get('disk'),
    ).toBe(200);
  });

  it("reads Mesos's JSON resources with disk sources, and refuses a source on anything but disk", () => {
    const r = parseResources(
      JSON.stringify([
        { name: 'cpus', type: 'SCALAR', scalar: { value: 2 } },
        { name: 'ports', type: 'RANGES', ranges: { range: [{ begin: 31000, end: 31010 }] } },
        { name: 'disk', type: 'SCALAR', scalar: { value: 500 }, disk: { source: { type: 'MOUNT', mount: { root: '/mnt/d1' } } } },
        { name: 'disk', type: 'SCALAR', scalar: { value: 64 }, role: 'db' },
      ]),
    );
    expect(r.toJSON()).toEqual(
      expect.arrayContaining([mount, { name: 'disk', value: 64, reservation: 'db' }, { name: 'ports', ranges: [[31000, 31010]] }]),
    );
    expect(() => Resources.of([{ name: 'cpus', value: 1, source: { type: 'PATH', root: '/x' } }])).toThrow(/disk/);
    expect(() => Resources.of([{ name: 'disk', value: 1, source: { type: 'PATH', root: 'relative' } }])).toThrow(/absolute/);
    expect(() => parseResources('[{"name":"disk","type":"SCALAR","scalar":{"value":1},"provider_id":{}}]')).toThrow(/provider_id/);
  });
});
