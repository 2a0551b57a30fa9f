/**
 * What the master knows of each agent's persistent volumes beyond their resource piece (their
 * container path, mode and creator), for Mesos's offers (`disk.persistence`, `disk.volume`).
 * Set with the agent's total each time the allocator is given it (agent-lifecycle), so it
 * describes exactly the volumes the allocator offers.
 */
export interface VolumeInfo {
  containerPath: string;
  mode: string;
  principal: string;
}

const keyOf = (role: string, id: string) => `${role}\u0000${id}`;

export class VolumeCatalog {
  private readonly byAgent = new Map<string, Map<string, VolumeInfo>>();

  set(agentId: string, volumes: ReadonlyArray<VolumeInfo & { role: string; persistenceId: string }>): void {
    if (!volumes.length) this.byAgent.delete(agentId);
    else
      this.byAgent.set(
        agentId,
        new Map(
          volumes.map((v) => [keyOf(v.role, v.persistenceId), { containerPath: v.containerPath, mode: v.mode, principal: v.principal }]),
        ),
      );
  }

  get(agentId: string, role: string, id: string): VolumeInfo | undefined {
    return this.byAgent.get(agentId)?.get(keyOf(role, id));
  }
}
