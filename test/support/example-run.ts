// Test support: a caller for the example run (shared/openapi/examples): a fresh tenant and organisation, so the IDs the
// examples name (location 1, payment 1, ...) are the ones the run creates, and the document the read example names
// (`doc-1`) posted, signed, for that organisation, as the run's note says a user does first.
import { documentExamples } from '#shared/openapi/examples/index';
import { documentWhen, postWebhook } from './document-events-http';
import { freshOrganisationId, signed, type ProviderEvent } from './document-events';
import { tokenFor } from './http';
import { freshTenantId } from './tenant-items';

export interface ExampleCaller {
  readonly tenant: number;
  readonly organisation: string;
  readonly token: string;
}

export const freshExampleCaller = async (): Promise<ExampleCaller> => {
  const tenant = freshTenantId();
  const organisation = freshOrganisationId();
  return { tenant, organisation, token: await tokenFor({ tenant, organisation }) };
};

/** Posts the webhook example's event for the caller's organisation, signed now, and waits until it is applied. */
export const postExampleDocument = async ({ organisation, token }: ExampleCaller): Promise<void> => {
  const event: ProviderEvent = { ...documentExamples.event, organisationId: organisation };
  const accepted = await postWebhook(signed(event));
  if (accepted.status !== 202) throw new Error(`the webhook answered ${accepted.status}: ${accepted.text}`);
  await documentWhen(event.data.object.id, token, () => true, `document ${event.data.object.id} of ${organisation}`);
};
