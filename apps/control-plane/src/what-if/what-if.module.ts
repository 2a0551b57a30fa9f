/** What-if on the live cluster: the allocator's next cycles with and without a change. */
import { Module } from '@nestjs/common';
import { WhatIfController } from './what-if.controller';
import { WhatIfService } from './what-if.service';
import { AllocationModule } from '../allocation/allocation.module';
import { SimulationWorkers } from './what-if.workers';

@Module({ imports: [AllocationModule], controllers: [WhatIfController], providers: [WhatIfService, SimulationWorkers] })
export class WhatIfModule {}
