import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TaskCreatedIndex1795461984052 implements MigrationInterface {
  name = 'TaskCreatedIndex1795461984052';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_cb3724030e9674f2c17b7573aa" ON "tasks"  ("created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_cb3724030e9674f2c17b7573aa"`);
  }
}
