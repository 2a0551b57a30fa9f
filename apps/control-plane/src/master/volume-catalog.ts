/**
 * What the master knows of each agent's persistent volumes beyond their resource piece (their
 * container path, mode, creator and size), for Mesos's offers (`disk.persistence`,
 * `disk.volume`) and the volume metrics. Set with the agent's total each time the allocator is
 * given it (agent-lifecycle), so it describes exactly the volumes the allocator offers.
 */
export interface VolumeInfo {
  containerPath: string;
  mode: string;
  principal: string;
  /** Its size in MB. */
  disk: number;
}

/** A volume as the catalog keeps it, with where it is. */
export interface CatalogVolume extends VolumeInfo {
  agentId: string;
  role: string;
  persistenceId: string;
}

/** One key for a role's volume (the same on every agent). */
export const volumeKeyOf = (role: string, id: string) => `${role}\u0000${id}`;

export class VolumeCatalog {
  private readonly byAgent = new Map<string, Map<string, CatalogVolume>>();

  set(agentId: string, volumes: ReadonlyArray<VolumeInfo & { role: string; persistenceId: string }>): void {
    if (!volumes.length) this.byAgent.delete(agentId);
    else
      this.byAgent.set(
        agentId,
        new Map(
          volumes.map((v) => [
            volumeKeyOf(v.role, v.persistenceId),
            {
              agentId,
              role: v.role,
              persistenceId: v.persistenceId,
              containerPath: v.containerPath,
              mode: v.mode,
              principal: v.principal,
              disk: v.disk,
            },
          ]),
        ),
      );
  }

  get(agentId: string, role: string, id: string): VolumeInfo | undefined {
    return this.byAgent.get(agentId)?.get(volumeKeyOf(role, id));
  }

  /** Each agent's volumes, by key (`volumeKeyOf`). */
  agents(): Iterable<[string, ReadonlyMap<string, CatalogVolume>]> {
    return this.byAgent;
  }
}
