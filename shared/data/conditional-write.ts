// Data layer: a conditional single-item update that the SDK's resend cannot turn into a refusal. The SDK sends a
// request again when its answer is lost (a reset connection, a timeout, a 500 after the write applied); a conditional
// UpdateItem's repeat then fails its condition on the write's own result, and the caller is told "someone else got
// there first" about its own write. `transact` sends every conditional write as a transaction, whose
// ClientRequestToken makes the repeat harmless; an update sent on its own (a sequence's increment, a lease) sets an
// attribute to a value unique to the call instead, its mark, and asks for the item as it stood when the condition
// failed (`ReturnValuesOnConditionCheckFailure: ALL_OLD`, no extra read): an item already bearing the mark is the
// call's own write. Comparing the item with what the write makes of it would not do: two read-modify-writes from the
// same state make the same item, and one of them must be refused.
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand, type DynamoDBDocumentClient, type PutCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';

export interface MarkedUpdateResult {
  /** `ReturnValues`' attributes when this attempt wrote; the whole item as it stood when a repeat was refused. */
  readonly attributes: Record<string, unknown> | undefined;
  /** True when the write was the call's own earlier attempt (its answer lost), found by its mark. */
  readonly repeated: boolean;
}

/** A refused condition (the item as it stood rides along when the write asked for it: `ALL_OLD`). */
export const isConditionFailure = (error: unknown): error is Error & { Item?: Record<string, AttributeValue> } =>
  (error as Error | undefined)?.name === 'ConditionalCheckFailedException';

/**
 * Sends `input`, which sets the top-level attribute `mark.attribute` to `mark.value` (unique to this call) under a
 * condition that the mark is not already that value (with whatever else the caller's condition says). A refusal by
 * an item that bears the mark resolves as the call's own write; any other refusal throws as before.
 */
export const sendMarkedUpdate = async (
  client: DynamoDBDocumentClient,
  input: UpdateCommandInput,
  mark: { readonly attribute: string; readonly value: string },
): Promise<MarkedUpdateResult> => {
  try {
    const { Attributes } = await client.send(new UpdateCommand({ ...input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    return { attributes: Attributes, repeated: false };
  } catch (error) {
    if (isConditionFailure(error) && error.Item?.[mark.attribute]?.S === mark.value) return { attributes: unmarshall(error.Item), repeated: true };
    throw error;
  }
};

/** The attribute a conditional edit of `transact` (a single write) marks its item with: a UUID per call. */
export const writeMarkAttribute = 'lastWrite';

/** The value name of an Update's mark. */
const markValue = ':writeMark';

/** The mark `markedWrite` gave a write, if any. */
export const markOf = (write: { readonly Put?: PutCommandInput; readonly Update?: UpdateCommandInput }): string | undefined => {
  const mark = write.Put ? write.Put.Item?.[writeMarkAttribute] : write.Update?.ExpressionAttributeValues?.[markValue];
  return typeof mark === 'string' ? mark : undefined;
};

/** A conditional PutItem that stores `mark` in `writeMarkAttribute` of its item (`markedWrite` adds it). */
export const sendMarkedPut = async (client: DynamoDBDocumentClient, input: PutCommandInput, mark: string): Promise<void> => {
  try {
    await client.send(new PutCommand({ ...input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
  } catch (error) {
    if (isConditionFailure(error) && error.Item?.[writeMarkAttribute]?.S === mark) return;
    throw error;
  }
};

/**
 * A conditional edit, marked: the Put's item holds `mark`, the Update sets it too. `transact` sends an edit alone this
 * way, so the SDK's resend of an edit whose answer was lost (refused by the edit's own Version) is taken as written,
 * while an edit another writer made from the same Version is still refused.
 */
export const markedWrite = <W extends { readonly Put?: PutCommandInput; readonly Update?: UpdateCommandInput }>(write: W, mark: string): W => {
  if (write.Put) return { ...write, Put: { ...write.Put, Item: { ...write.Put.Item, [writeMarkAttribute]: mark } } };
  if (!write.Update) return write;
  const update = write.Update;
  const expression = update.UpdateExpression ?? '';
  const assignment = `#writeMark = ${markValue}`;
  const UpdateExpression = /\bSET\b/i.test(expression) ? expression.replace(/\bSET\b/i, `SET ${assignment},`) : `SET ${assignment} ${expression}`.trim();
  return {
    ...write,
    Update: {
      ...update,
      UpdateExpression,
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#writeMark': writeMarkAttribute },
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, [markValue]: mark },
    },
  };
};
