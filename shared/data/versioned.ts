// Data layer: versioned (optimistic) writes. A record carries `Version`; a write names the version it read and
// succeeds only if the stored record still has it, storing the next version. A create succeeds only if nothing is
// stored under the key yet. Both are transaction items, to combine with other actions (see transaction.ts).
import type { ItemKey } from './partition';
import type { TransactionItem } from './transaction';

export const versionAttribute = 'Version';

/** The version a write stores: 1 for a create, one more than the version read otherwise. */
export const nextVersion = (previous: { readonly Version: number } | undefined): number => (previous?.Version ?? 0) + 1;

/** The condition of a write that replaces `expectedVersion`, or creates when it is undefined. */
const versionCondition = (expectedVersion: number | undefined) =>
  expectedVersion === undefined
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : {
        ConditionExpression: '#version = :expectedVersion',
        ExpressionAttributeNames: { '#version': versionAttribute },
        ExpressionAttributeValues: { ':expectedVersion': expectedVersion },
      };

/**
 * Puts a whole item (which carries its new `Version`) if the stored one has `expectedVersion`, or, when
 * `expectedVersion` is undefined, if there is none yet.
 */
export const versionedPut = (tableName: string, item: ItemKey & Record<string, unknown>, expectedVersion: number | undefined): TransactionItem => ({
  Put: { TableName: tableName, Item: item, ...versionCondition(expectedVersion) },
});

/**
 * Sets some attributes of an existing item and bumps its `Version` by one, if the stored one has `expectedVersion`.
 * Attribute names are the caller's code, never user input.
 */
export const versionedUpdate = (
  tableName: string,
  key: ItemKey,
  expectedVersion: number,
  set: Readonly<Record<string, unknown>>,
): TransactionItem => {
  const names: Record<string, string> = { '#version': versionAttribute };
  const values: Record<string, unknown> = { ':expectedVersion': expectedVersion, ':one': 1 };
  const assignments = Object.entries(set).map(([attribute, value], index) => {
    names[`#a${index}`] = attribute;
    values[`:v${index}`] = value;
    return `#a${index} = :v${index}`;
  });
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${[...assignments, '#version = #version + :one'].join(', ')}`,
      ConditionExpression: '#version = :expectedVersion',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};
