/**
 * The worker threads that run what-if simulations: at most `simulations` (configuration) at
 * once, each in a worker of its own, so that a simulation never holds the leader's event loop;
 * another request meanwhile is refused 429 SIMULATION_BUSY. Workers are kept for the next
 * simulation (starting one compiles the allocator) and stopped with the application.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { ArbiterException } from '../errors/errors.exception';
import { WhatIfErrorCode } from './what-if.errors';
import type { SimulationJob, SimulationOutcome } from './what-if.worker';

/**
 * The worker's entry: the TypeScript sources run through SWC, as the `arbiter` command runs
 * them (apps/cli/bin/arbiter.js); a worker has no module hooks of its parent.
 */
const BOOT = `
const { workerData } = require('node:worker_threads');
require(workerData.register);
require(workerData.file);
`;

function startWorker(modules: AppConfig['modules']): Worker {
  const worker = new Worker(BOOT, {
    eval: true,
    workerData: {
      register: path.resolve(__dirname, '..', '..', '..', '..', 'scripts', 'register.js'),
      file: path.join(__dirname, 'what-if.worker.ts'),
      // The worker loads the policy modules itself (the allocator's sorter or placement run there too).
      modules,
    },
  });
  // An idle worker never keeps the process alive.
  worker.unref();
  return worker;
}

/** Posts one job and waits for its outcome, or for the worker's failure. */
function ask(worker: Worker, job: SimulationJob): Promise<SimulationOutcome> {
  return new Promise((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (outcome: SimulationOutcome) => {
      done();
      resolve(outcome);
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`the what-if worker exited (${code})`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(job);
  });
}

@Injectable()
export class SimulationWorkers implements OnModuleDestroy {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private running = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Simulations under way (between their place being taken and their answer). */
  get busy(): number {
    return this.running;
  }

  /**
   * Takes a place (or refuses SIMULATION_BUSY at once), then runs the job `prepare` gives (the
   * snapshot is taken only once the place is held) in a worker; `context` is handed back as is.
   */
  async run<C>(prepare: () => Promise<{ job: SimulationJob; context: C }>): Promise<{ outcome: SimulationOutcome; context: C }> {
    if (this.running >= this.config.simulations)
      throw new ArbiterException(
        WhatIfErrorCode.SIMULATION_BUSY,
        `${this.running} what-if simulation(s) are running, as many as this control plane runs at once (ARBITER_SIMULATIONS); try again shortly`,
        { running: this.running, limit: this.config.simulations },
      );
    this.running++;
    try {
      const { job, context } = await prepare();
      const worker = this.idle.pop() ?? this.start();
      const outcome = await ask(worker, job).catch((err: unknown) => {
        this.all.delete(worker);
        void worker.terminate();
        throw err;
      });
      this.idle.push(worker);
      return { outcome, context };
    } finally {
      this.running--;
    }
  }

  private start(): Worker {
    const worker = startWorker(this.config.modules);
    this.all.add(worker);
    return worker;
  }

  async onModuleDestroy(): Promise<void> {
    const workers = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
