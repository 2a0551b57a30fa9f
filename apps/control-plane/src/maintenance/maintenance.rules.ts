/** Machine ids as operators give them: a hostname, an IP or both. */
import { isIP } from 'node:net';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import type { MachineDto } from './maintenance.dto';

export interface MachineId {
  hostname: string;
  ip: string;
}
export const machineKey = (m: MachineId) => `${m.hostname}\u0000${m.ip}`;
export const showMachine = (m: MachineId) => (m.hostname && m.ip ? `${m.hostname} (${m.ip})` : m.hostname || m.ip);

/** A machine id from input: at least a hostname or an IP; the IP must be valid. */
export function machineId(m: MachineDto, field: string): MachineId {
  const hostname = (m.hostname ?? '').trim();
  const ip = (m.ip ?? '').trim();
  const bad = (problem: string) =>
    new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: ${field} ${problem}`, {
      errors: [{ field, problems: [problem] }],
    });
  if (!hostname && !ip) throw bad('needs a hostname or an ip');
  if (hostname && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(hostname)) throw bad(`hostname '${hostname}' is not a valid hostname`);
  if (ip && !isIP(ip)) throw bad(`ip '${ip}' is not an IPv4 or IPv6 address`);
  return { hostname, ip };
}
