import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { machineId, machineKey, showMachine } from './maintenance.rules';

describe('machineId', () => {
  it.each([
    [{ hostname: 'node-1' }, { hostname: 'node-1', ip: '' }],
    [{ ip: '10.0.0.3' }, { hostname: '', ip: '10.0.0.3' }],
    [
      { hostname: ' node-2 ', ip: ' 10.0.0.2 ' },
      { hostname: 'node-2', ip: '10.0.0.2' },
    ],
    [{ ip: '::1' }, { hostname: '', ip: '::1' }],
    [{ hostname: 'a.b-c.example' }, { hostname: 'a.b-c.example', ip: '' }],
  ])('reads %j as %j', (input, expected) => {
    expect(machineId(input, 'machines.0')).toEqual(expected);
  });

  it.each([
    [{}, 'needs a hostname or an ip'],
    [{ hostname: '  ', ip: '' }, 'needs a hostname or an ip'],
    [{ hostname: 'bad host' }, "hostname 'bad host' is not a valid hostname"],
    [{ hostname: '-leading' }, "hostname '-leading' is not a valid hostname"],
    [{ hostname: 'trailing.' }, "hostname 'trailing.' is not a valid hostname"],
    [{ ip: '999.1.1.1' }, "ip '999.1.1.1' is not an IPv4 or IPv6 address"],
    [{ hostname: 'ok', ip: 'localhost' }, "ip 'localhost' is not an IPv4 or IPv6 address"],
  ])('refuses %j: %s', (input, problem) => {
    const field = 'windows.0.machines.1';
    expect(() => machineId(input, field)).toThrow(
      new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: ${field} ${problem}`),
    );
    try {
      machineId(input, field);
    } catch (err) {
      expect((err as ArbiterException).details).toEqual({ errors: [{ field, problems: [problem] }] });
    }
  });
});

describe('machine keys and names', () => {
  it('keys hostname and ip together, so the same hostname with another ip is another machine', () => {
    expect(machineKey({ hostname: 'a', ip: '1.1.1.1' })).not.toBe(machineKey({ hostname: 'a', ip: '' }));
    expect(machineKey({ hostname: 'a', ip: '' })).toBe(machineKey({ hostname: 'a', ip: '' }));
    // The parts stay apart: hostname 'ab' is not hostname 'a' with ip 'b'.
    expect(machineKey({ hostname: 'ab', ip: '' })).not.toBe(machineKey({ hostname: 'a', ip: 'b' }));
  });

  it.each([
    [{ hostname: 'node-1', ip: '' }, 'node-1'],
    [{ hostname: '', ip: '10.0.0.3' }, '10.0.0.3'],
    [{ hostname: 'node-2', ip: '10.0.0.2' }, 'node-2 (10.0.0.2)'],
  ])('shows %j as %s', (machine, shown) => {
    expect(showMachine(machine)).toBe(shown);
  });
});
