/**
 * Mesos's Labels and DiscoveryInfo in Arbiter's terms, and back (as `/master/state` shows them):
 * stored with a task and shown, not acted on.
 */
import type { Discovery, Label, MesosDiscoveryInfo, MesosLabels } from '@arbiter/contracts';

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>);

/** Mesos's Labels as Arbiter's (absent when empty). */
export function labelsOf(l: MesosLabels | undefined): Label[] | undefined {
  return l?.labels?.length ? l.labels.map(({ key, value }) => (value === undefined ? { key } : { key, value })) : undefined;
}

/** Arbiter's labels as Mesos's Labels. */
export const toMesosLabels = (labels: Label[]) => ({ labels });

/** Mesos's DiscoveryInfo as Arbiter's (its `ports.ports` and `labels.labels` flattened). */
export function discoveryOf(d: MesosDiscoveryInfo): Discovery {
  const { ports, labels, ...rest } = d;
  const list = ports?.ports?.map(({ labels: portLabels, ...port }) => ({ ...port, ...optional('labels', labelsOf(portLabels)) }));
  return { ...rest, ...optional('ports', list), ...optional('labels', labelsOf(labels)) };
}

/** Arbiter's Discovery in Mesos's shape (as `/master/state` shows a task's DiscoveryInfo). */
export function toMesosDiscovery(d: Discovery): Record<string, unknown> {
  const { ports, labels, ...rest } = d;
  return {
    ...rest,
    ...(ports
      ? { ports: { ports: ports.map(({ labels: l, ...port }) => ({ ...port, ...(l ? { labels: toMesosLabels(l) } : {}) })) } }
      : {}),
    ...(labels ? { labels: toMesosLabels(labels) } : {}),
  };
}
