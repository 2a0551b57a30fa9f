import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ContainerTasksAgentCapabilities1795774378776 implements MigrationInterface {
  name = 'ContainerTasksAgentCapabilities1795774378776';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agents" ADD "capabilities" jsonb`);
    await queryRunner.query(`ALTER TABLE "tasks" ADD "container" jsonb`);
    await queryRunner.query(`ALTER TABLE "tasks" ADD "container_image" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "container_image"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "container"`);
    await queryRunner.query(`ALTER TABLE "agents" DROP COLUMN "capabilities"`);
  }
}
