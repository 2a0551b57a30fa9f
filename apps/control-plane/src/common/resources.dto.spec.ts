import 'reflect-metadata';
import { ResourceParseError, Resources } from '@arbiter/allocator';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { IsResources, parseResourcesWithRule, scalarMap, sumScalars } from './resources.dto';

describe('parseResourcesWithRule', () => {
  it.each([
    ['cpus:4;mem:8192', 'cpus:4;mem:8192'],
    [{ cpus: 4, mem: 8192 }, 'cpus:4;mem:8192'],
    [[{ name: 'cpus', value: 2 }], 'cpus:2'],
    ['ports:[31000-31010]', 'ports:[31000-31010]'],
  ])('reads %j without a rule as %s', (input, text) => {
    expect(parseResourcesWithRule(input).toString()).toBe(text);
  });

  it.each([
    // [input, rule, the message's start]
    ['', { nonEmpty: true }, 'must name at least one resource'],
    ['cpus(eng):1', { unreservedOnly: true }, "must be unreserved (no '(role)' or 'reservation'); got cpus(eng):1"],
    ['cpus(eng):1', { scalarsOnly: true }, 'must be unreserved'],
    [[{ name: 'cpus', value: 1, revocable: true }], { unreservedOnly: true }, 'must not be revocable'],
    ['ports:[1-2]', { scalarsOnly: true }, 'must be scalar amounts (cpus, mem, disk, gpus, ...); ports cannot have a quota'],
    ['cpus:abc', {}, "invalid scalar value 'abc'"],
  ])('refuses %j under %j: %s', (input, rule, message) => {
    expect(() => parseResourcesWithRule(input, rule)).toThrow(ResourceParseError);
    expect(() => parseResourcesWithRule(input, rule)).toThrow(message);
  });

  it('lets reservations and ranges through when no rule forbids them', () => {
    expect(parseResourcesWithRule('cpus(eng):1;ports:[1-2]', { nonEmpty: true }).toString()).toBe('cpus(eng):1;ports:[1-2]');
  });
});

describe('scalarMap and sumScalars', () => {
  it('gives scalar amounts by name, sorted', () => {
    expect(Object.entries(scalarMap(Resources.fromScalars({ mem: 256, cpus: 1, disk: 10 })))).toEqual([
      ['cpus', 1],
      ['disk', 10],
      ['mem', 256],
    ]);
  });

  it('adds up lists, reserved or not, and leaves out ranges', () => {
    const lists = [
      [
        { name: 'cpus', value: 1.5 },
        { name: 'mem', value: 512 },
      ],
      [
        { name: 'cpus', value: 1, reservation: 'eng' },
        { name: 'ports', ranges: [[31000, 31010]] as Array<[number, number]> },
      ],
      [],
    ];
    expect(sumScalars(lists)).toEqual({ cpus: 2.5, mem: 512 });
    expect(sumScalars([])).toEqual({});
  });
});

describe('@IsResources', () => {
  class QuotaInput {
    @IsResources({ scalarsOnly: true }) guarantees!: unknown;
  }
  const problems = (guarantees: unknown) =>
    validateSync(plainToInstance(QuotaInput, { guarantees })).flatMap((e) => Object.values(e.constraints ?? {}));

  it('accepts what the rule allows', () => {
    expect(problems('cpus:1;mem:256')).toEqual([]);
    expect(problems({ cpus: 1 })).toEqual([]);
  });

  it("names the property and says what is wrong, in the parser's words", () => {
    expect(problems('ports:[1-2]')).toEqual(['guarantees must be scalar amounts (cpus, mem, disk, gpus, ...); ports cannot have a quota']);
    expect(problems('cpus:abc')).toEqual([expect.stringMatching(/^guarantees .*invalid scalar value 'abc'/)]);
  });
});
