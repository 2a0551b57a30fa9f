/** Persistent volumes: the operator API, and the same rules for frameworks' CREATE and DESTROY. */
import { Module } from '@nestjs/common';
import { OwnsEntities } from '../database/database.entities';
import { MasterModule } from '../master/master.module';
import { VolumeEntity } from './volume.entity';
import { VolumesController } from './volumes.controller';
import { VolumesRepository } from './volumes.repository';
import { VolumesService } from './volumes.service';

@OwnsEntities(VolumeEntity)
@Module({
  imports: [MasterModule],
  controllers: [VolumesController],
  providers: [VolumesService, VolumesRepository],
  exports: [VolumesService],
})
export class VolumesModule {}
