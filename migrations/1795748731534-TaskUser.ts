import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TaskUser1795748731534 implements MigrationInterface {
  name = 'TaskUser1795748731534';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tasks" ADD "user" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "user"`);
  }
}
