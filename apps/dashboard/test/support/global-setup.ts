import controlPlaneSetup from '../../../control-plane/test/support/global-setup';
import { ensureDashboardBuilt } from '@arbiter/cli/dashboard';

export default async function globalSetup(): Promise<void> {
  await controlPlaneSetup();
  ensureDashboardBuilt((line) => console.log(`\ndashboard tests: ${line}`));
}
