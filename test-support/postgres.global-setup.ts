// vitest globalSetup of the forms-postgres and render-cluster projects: one throwaway cluster for the whole run. A
// cluster that cannot start fails the run with PostgreSQL's reason; it is never a skip.
import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';

export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => {
    cluster.stop();
  };
}
