import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The volumes table fenced as every table the master writes: a deposed leader's write is refused (LeadershipTerms). */
export class FenceVolumes1795786000000 implements MigrationInterface {
  name = 'FenceVolumes1795786000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TRIGGER "fence_volumes" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "volumes" FOR EACH STATEMENT EXECUTE FUNCTION arbiter_fence()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS "fence_volumes" ON "volumes"`);
  }
}
