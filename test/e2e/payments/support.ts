// Test support for the payment end-to-end tests: requests in any media type, the answer schemas to read XML back,
// and the card the tests send (whose number, CVV, token and holder name the scans look for).
import { EditResponse, SynkSaveQueueResponse } from '#shared/schemas/envelopes';
import { PaymentT } from '#shared/schemas/payment';
import { encodeBody, type RequestMediaType } from '#test/support/bodies';
import { api, type ApiResponse } from '#test/support/http';

export const savedSchema = SynkSaveQueueResponse(PaymentT);
export const readSchema = EditResponse(PaymentT);

export interface SavedBody {
  readonly Object: PaymentT;
  readonly IsQueued: boolean;
  readonly IsQueuePrompt: boolean;
  readonly Value: { ID: number; GUID: string; RefNumber: string; StatusString: string };
  readonly IsSuccess: boolean;
  readonly Messages: string[];
}

export interface SendOptions {
  readonly type?: RequestMediaType;
  readonly accept?: string;
  readonly key?: string;
}

type Body = Parameters<typeof encodeBody>[1];

const send = (path: string, token: string, body: Body | undefined, { type = 'application/json', accept, key }: SendOptions) => {
  const encoded = body === undefined ? undefined : encodeBody(type, body, 'SaveRequestPaymentT');
  return api<SavedBody>(path, {
    method: 'POST',
    token,
    ...(encoded ? { body: encoded.body } : {}),
    headers: { ...(encoded?.headers ?? {}), ...(accept ? { Accept: accept } : {}), ...(key ? { 'Idempotency-Key': key } : {}) },
  });
};

export const postPayment = (token: string, body: Body, options: SendOptions = {}): Promise<ApiResponse<SavedBody>> =>
  send('/Payment', token, body, options);

export const postRefund = (token: string, id: number | string, body: Body | undefined, options: SendOptions = {}): Promise<ApiResponse<SavedBody>> =>
  send(`/Payment/${id}/refund`, token, body, options);

export const getPayment = (token: string, id: number | string, accept?: string) =>
  api<{ Value: PaymentT; IsSuccess: boolean; Messages: string[] }>(`/Payment/${id}`, { token, ...(accept ? { headers: { Accept: accept } } : {}) });

/** A Luhn-valid card number, CVV, payment service token and holder name no other test file sends. */
export const secrets = {
  cardNumber: '4000056655665556',
  cvv: '7373',
  token: 'tok_e2e_payment_service_5f3a9c',
  holderName: 'QUENTIN E2E HOLDER',
} as const;
