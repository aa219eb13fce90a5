// Test support for the payment integration tests: the real service and repository on DynamoDB Local, a principal
// of a fresh tenant, and what a refused call threw.
import { createPaymentRepository } from '#shared/payments/repository';
import { createPaymentService } from '#shared/payments/service';
import type { RefundPublisher } from '#shared/payments/queue';
import type { Principal } from '#shared/auth/principal';
import { freshTenantId, openLocalTable } from '#test/integration/data/support';

export { failureOf, storedItem, tenantItems } from '#test/integration/data/support';

export const openPayments = (publish: RefundPublisher = async () => undefined) => {
  const table = openLocalTable();
  const repository = createPaymentRepository(table);
  return { table, repository, service: createPaymentService({ repository, publish }) };
};

export const freshPrincipal = (): Principal => ({ tenantId: freshTenantId(), websiteId: 1, userId: 42 });

/** The card of the tests: a Luhn-valid number, a holder, a token; and what must never be stored. */
export const testCard = {
  CardType: 'Visa',
  CardNumber: '4111111111111111',
  CardHolderName: 'PAT Q CARDHOLDER',
  ExpiryMMYY: '0829',
  CardToken: 'ctok_integration_1',
};
