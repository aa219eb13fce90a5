// HTTP middlewares: a refusal the gateway itself makes, met by a function.
import type { GatewayResponseType } from '#shared/http/gateway-responses';

/**
 * A refusal the gateway itself makes for a request it sees (an expired token, when no cached Allow stands in the
 * way): `authenticate.ts` throws it, and `problem-responses.ts` answers the gateway's own response, so the client gets
 * the same answer whichever refused it.
 */
export class GatewayRefusal extends Error {
  override readonly name = 'GatewayRefusal';
  constructor(readonly type: GatewayResponseType, reason: string) {
    super(reason);
  }
}
