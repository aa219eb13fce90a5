// Entry: POST /Platform/DocumentAnalyser/Provider/Webhook: verify the provider's signature, enqueue, answer 202.
// No bearer token (authenticity is the signature); JSON only; bodies over the SQS message limit are refused (413).
// Every answer is counted: accepted, or refused by reason (shared/observability/metrics.ts), whichever middleware or
// the handler decided it.
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { providerWebhook } from '#shared/compiled/operations/document-events';
import { httpOperation, respond } from '#shared/http/operation';
import { webhookService } from '#shared/document-events/wiring';
import { countWebhookAnswer } from '#shared/document-events/webhook-metrics';

const documentEvents = webhookService();

const webhook = httpOperation(providerWebhook).handler(async ({ body }) => {
  const { eventId } = await documentEvents.accept(body);
  return respond(202, { eventId, status: 'queued' });
});

export const handler = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
  const answer = (await webhook(event, context)) as APIGatewayProxyResult;
  countWebhookAnswer(answer.statusCode);
  return answer;
};
