/** What long-running commands (a control plane, an agent, a dashboard) wait for before they stop. */

/** Resolves when SIGINT or SIGTERM arrives. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
