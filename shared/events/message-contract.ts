// Platform: a queue's message contract, the one thing its senders and its consumer agree on, carried by the queue's
// definition (queues.ts). A contract reads a queue body into its message or throws; it never quotes the body in what
// it throws (a message may carry personal data). Every contract of the service is a schema of the contracts layer
// compiled into shared/compiled/schemas/ (zod at build time, ajv's standalone validator of its JSON Schema at run time:
// a consumer's bundle loads no zod),
// read from JSON by `jsonMessage`.

/** What a consumer reads its queue's bodies with, and a sender may check its messages with. */
export interface MessageContract<T> {
  /** The message's name in log lines (`queued refund`). */
  readonly name: string;
  /** The message a body holds; throws on anything its senders never write. */
  readonly read: (body: string) => T;
  /** The message a value is, exactly; throws on anything else (a sender's check before it sends). */
  readonly check: (value: unknown) => T;
}

/** A JSON message checked by a schema (a compiled schema of shared/compiled/, or any `{ parse }`). */
export const jsonMessage = <T>(name: string, schema: { readonly parse: (value: unknown) => T }): MessageContract<T> => ({
  name,
  read: (body) => schema.parse(JSON.parse(body) as unknown),
  check: (value) => schema.parse(value),
});
