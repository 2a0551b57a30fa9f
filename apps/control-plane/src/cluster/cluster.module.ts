/** The cluster at a glance: GET /api/v1/cluster. */
import { Module } from '@nestjs/common';
import { ClusterController } from './cluster.controller';
import { ClusterRepository } from './cluster.repository';
import { ClusterService } from './cluster.service';
import { MasterModule } from '../master/master.module';

@Module({
  imports: [MasterModule],
  controllers: [ClusterController],
  providers: [ClusterRepository, ClusterService],
  exports: [ClusterService],
})
export class ClusterModule {}
