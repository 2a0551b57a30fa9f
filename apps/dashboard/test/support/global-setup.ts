import controlPlaneSetup from '../../../control-plane/test/support/global-setup';
import { ensureDashboardBuilt } from '../../../cli/src/commands/dashboard';

export default async function globalSetup(): Promise<void> {
  await controlPlaneSetup();
  ensureDashboardBuilt((line) => console.log(`\ndashboard tests: ${line}`));
}
