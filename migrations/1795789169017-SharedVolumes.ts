import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SharedVolumes1795789169017 implements MigrationInterface {
  name = 'SharedVolumes1795789169017';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "volumes" ADD "shared" boolean NOT NULL DEFAULT false`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "volumes" DROP COLUMN "shared"`);
  }
}
