import type { MigrationInterface, QueryRunner } from 'typeorm';

export class FrameworkProtocol1795634849400 implements MigrationInterface {
  name = 'FrameworkProtocol1795634849400';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "frameworks" ADD "protocol" text NOT NULL DEFAULT 'arbiter'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "frameworks" DROP COLUMN "protocol"`);
  }
}
