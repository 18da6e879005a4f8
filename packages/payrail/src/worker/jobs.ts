// The worker's jobs, in the order they run each round.
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

export function createJobs(_service: Service): Job[] {
  return [];
}
