/**
 * Mesos's ContainerInfo in Arbiter's terms (the codec is the contracts' own, shared with the
 * agent): refusals as protocol errors (UNSUPPORTED, INVALID_MESSAGE).
 */
import { containerOf as decode, type ContainerSpec, type MesosContainerInfo, PROTOCOL_ERRORS } from '@arbiter/contracts';
import { ProtocolError } from '../kernel/protocol-error';

export { toMesosContainer } from '@arbiter/contracts';

const errors = {
  unsupported: (what: string, why: string) => new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, `${what} is not supported: ${why}`),
  invalid: (message: string) => new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, message),
};

/** A ContainerInfo (of a TaskInfo or an ExecutorInfo, named by `where`) as Arbiter's ContainerSpec. */
export function containerOf(c: MesosContainerInfo, where: string): ContainerSpec {
  return decode(c, where, errors);
}
