import type { MigrationInterface, QueryRunner } from 'typeorm';

export class FrameworkCheckpoint1795774300001 implements MigrationInterface {
  name = 'FrameworkCheckpoint1795774300001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "frameworks" ADD "checkpoint" boolean NOT NULL DEFAULT true`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "frameworks" DROP COLUMN "checkpoint"`);
  }
}
