// HTTP: the answer of a scheduled-task save in the platform's envelope. The area returns the saved task (secrets shown
// only as `Has<Field>` flags: task-view.ts); this module answers it, and the Idempotency-Key's claim keeps it whole.
import { scheduledTaskGet } from '#shared/compiled/operations/scheduled-tasks';
import type { Answer } from '#shared/data/idempotency';
import type { SaveOutcome } from '#shared/scheduled-tasks/service';
import { actionResults } from '#shared/schemas/envelope-bodies';
import { locationOf } from '#shared/http/location';

/** `ActionResults<ScheduledTask>`: 201 with a Location for a create, 200 for an update. */
export const savedAnswer = ({ created, task }: SaveOutcome): Answer => ({
  status: created ? 201 : 200,
  body: actionResults(task),
  headers: created ? { Location: locationOf(scheduledTaskGet, { id: task.ID as number }) } : {},
});
