// Domain: a scheduled task as answers show it. Secret values never leave the service: the adaptor's details are
// shown through the public view of the secret fields (`Has<Field>: true`, `HasValue: true`), and the stored form's
// ciphertexts are not part of the answer at all.
import { publicAdaptorDetails, type StoredAdaptorDetails } from '#shared/crypto/secret-fields';
import type { AdaptorDetails, ScheduledTask, ScheduledTaskRun } from '#shared/schemas/scheduled-task';
import type { TaskRecord } from './store';

export const taskView = (record: TaskRecord, adaptor: StoredAdaptorDetails | undefined, runs?: readonly ScheduledTaskRun[]): ScheduledTask => ({
  ...record,
  ...(adaptor ? { AdaptorDetails: publicAdaptorDetails(adaptor) as AdaptorDetails } : {}),
  ...(runs ? { Runs: [...runs] } : {}),
});
