import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { ClusterSummaryDto } from './cluster.dto';
import { ClusterService } from './cluster.service';
import { Requires } from '../auth/permissions';
import { Coalesced } from '../app/coalesce';

@ApiTags('cluster')
@ApiBearerAuth()
@Controller('api/v1/cluster')
export class ClusterController {
  constructor(private readonly cluster: ClusterService) {}

  @Get()
  @Coalesced()
  @Requires('read')
  @ApiOperation({ summary: 'The cluster at a glance: capacity and use per resource, counts by state, the latest cycle, alerts' })
  @ApiOkResponse({ type: ClusterSummaryDto })
  @ApiErrors()
  summary(): Promise<ClusterSummaryDto> {
    return this.cluster.summary();
  }
}
