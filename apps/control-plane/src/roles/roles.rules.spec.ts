import fc from 'fast-check';
import { parseResources, Resources } from '@arbiter/allocator';
import { Role } from '@arbiter/contracts';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { checkRole, overCapacity, withAncestors } from './roles.rules';

describe('checkRole', () => {
  it.each(['eng', 'eng/ml', 'ops/oncall/night', 'a-b_c.d'])('accepts %j', (role) => {
    expect(checkRole(role, 'role')).toBe(role);
  });

  it.each([
    ['*', 'weights.0.role'],
    ['a/../b', 'role'],
    ['bad role', 'quotas.1.role'],
    ['', 'role'],
    [42, 'role'],
  ])('refuses %j with VALIDATION_FAILED naming the field %s', (role, field) => {
    let thrown: unknown;
    try {
      checkRole(role, field);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ArbiterException);
    const e = thrown as ArbiterException;
    expect(e.code).toBe(CommonErrorCode.VALIDATION_FAILED);
    expect(e.message.startsWith(`invalid request: ${field} `)).toBe(true);
    expect(e.details).toEqual({ errors: [{ field, problems: [e.message.slice(`invalid request: ${field} `.length)] }] });
  });
});

describe('withAncestors', () => {
  it.each([
    ['eng', ['eng']],
    ['eng/ml', ['eng', 'eng/ml']],
    ['a/b/c', ['a', 'a/b', 'a/b/c']],
  ])('%s -> %j', (role, expected) => {
    expect(withAncestors(role)).toEqual(expected);
  });
});

describe('overCapacity', () => {
  it.each([
    // Guarantees within capacity: nothing over.
    [[{ cpus: 4 }, { cpus: 4, mem: 1024 }], { cpus: 8, mem: 2048 }, []],
    // cpus 4 + 5 = 9 > 8; mem 1024 fits.
    [[{ cpus: 4 }, { cpus: 5, mem: 1024 }], { cpus: 8, mem: 2048 }, [{ resource: 'cpus', requested: 9, available: 8 }]],
    // A resource the cluster does not have at all: available 0.
    [[{ gpus: 1 }], { cpus: 8 }, [{ resource: 'gpus', requested: 1, available: 0 }]],
    // 0.1 + 0.2 is 0.30000000000000004: within the tolerance of a capacity of 0.3.
    [[{ cpus: 0.1 }, { cpus: 0.2 }], { cpus: 0.3 }, []],
    // Requested amounts are shown to three decimals: 1/3 + 1/3 = 0.667 > 0.5.
    [[{ cpus: 1 / 3 }, { cpus: 1 / 3 }], { cpus: 0.5 }, [{ resource: 'cpus', requested: 0.667, available: 0.5 }]],
    [[], { cpus: 8 }, []],
  ])('guarantees %j against %j: %j', (guarantees, capacity, expected) => {
    expect(overCapacity(guarantees as Array<Record<string, number>>, capacity as Record<string, number>)).toEqual(expected);
  });
});

describe('one role rule: every role the contracts accept, the allocator accepts', () => {
  // Segments from the characters of role paths and those next to them in the resource text form.
  const segment = fc.string({
    unit: fc.constantFrom('a', 'Z', '0', '_', '.', '@', '+', '-', ':', '*', '(', ' ', ';'),
    minLength: 0,
    maxLength: 4,
  });
  const candidate = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));

  it('in reservations, resource entries and the resource text form', () => {
    fc.assert(
      fc.property(candidate, (role) => {
        if (!Role.safeParse(role).success) return;
        expect(
          Resources.of([{ name: 'cpus', value: 1, reservation: role }])
            .reserved(role)
            .get('cpus'),
        ).toBe(1);
        expect(parseResources(`cpus(${role}):1`).reserved(role).get('cpus')).toBe(1);
        expect(
          Resources.of([{ name: 'cpus', value: 1 }])
            .withReservation(role)
            .isEmpty(),
        ).toBe(false);
      }),
      { seed: 20261124, numRuns: 2_000 },
    );
  });
});
