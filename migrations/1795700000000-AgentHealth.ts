import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AgentHealth1795700000000 implements MigrationInterface {
  name = 'AgentHealth1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agents" ADD "health" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agents" DROP COLUMN "health"`);
  }
}
