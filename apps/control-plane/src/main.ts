/** Public API of the control plane for the CLI, tools and tests. */
export * from './config/config.schema';
export * from './database/database.connection';
export * from './database/database.migrations';
export { type LargeCluster, seedLargeCluster } from './database/database.bench-seed';
export { createDataSource } from './app.module';
export { startControlPlane, createApp, generateOpenApiJson, type ControlPlane } from './server';
export { LEADER_LOCK } from './leadership/leadership.repository';
export { API_TYPES_FILE, buildOpenApiDocument, generateApiTypes, OPENAPI_FILE } from './app/openapi';
