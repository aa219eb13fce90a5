// Domain: what the webhook's answer means to an operator. Every answer is one data point: accepted (202), or
// refused with the reason its status stands for (the webhook has no bearer token, so a 401 is always the signature).
import { countMetric, type WebhookRefusalReason } from '#shared/observability/metrics';

const refusalReasons = new Map<number, WebhookRefusalReason>([
  [400, 'Invalid'],
  [401, 'Signature'],
  [406, 'MediaType'],
  [413, 'TooLarge'],
  [415, 'MediaType'],
  [503, 'Unavailable'],
]);

/** The reason a webhook answer stands for; undefined for an accepted event. */
export const webhookRefusalReason = (status: number): WebhookRefusalReason | undefined =>
  status === 202 ? undefined : (refusalReasons.get(status) ?? 'Other');

export const countWebhookAnswer = (status: number): void => {
  const reason = webhookRefusalReason(status);
  if (reason === undefined) countMetric('webhookEventsAccepted');
  else countMetric('webhookEventsRefused', reason);
};
