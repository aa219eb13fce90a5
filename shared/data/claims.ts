// Data layer: case-insensitive unique claims. A value that must be unique in a tenant (a location's name, ...) is
// held by one claim item `T#<tenant>` / `<prefix>#<normalised value>` naming its owner. Claiming puts the item only
// if it does not exist, releasing deletes it only if the owner still holds it; both are transaction items, written
// together with the owner's own record, so the rule holds under any concurrency.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './client';
import { composeKey, tenantKey, type ItemKey } from './partition';
import { keyValueFits } from './item-size';
import { normaliseClaimValue } from './visible-text';
import type { TransactionItem } from './transaction';

export { isBlankValue, normaliseClaimValue } from './visible-text';

export interface ClaimDefinition {
  /** Sort-key prefix of the claim items, e.g. `LOCNAME`. */
  readonly prefix: string;
  /** The `entity` attribute of the claim items. */
  readonly entity: string;
  /** The attribute that names the owner, e.g. `LocationID`. */
  readonly ownerAttribute: string;
}

export type ClaimOwner = number | string;

/** The claims of one kind: keys, the transaction items that take and give back a value, and who holds a value. */
export const defineClaim = ({ prefix, entity, ownerAttribute }: ClaimDefinition) => {
  const key = (tenantId: number, value: string): ItemKey => tenantKey(tenantId, composeKey(prefix, normaliseClaimValue(value)));
  const item = (tenantId: number, value: string, owner: ClaimOwner) => ({ ...key(tenantId, value), entity, [ownerAttribute]: owner });
  const claimPut = (tableName: string, tenantId: number, value: string, owner: ClaimOwner) => ({
    TableName: tableName,
    Item: item(tenantId, value, owner),
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  return {
    key,
    /** The stored claim item (for a bulk load; a request claims with `claim`). */
    item,

    /** Takes the value for `owner`; fails (ConditionalCheckFailed) when anyone holds it already. */
    claim: (tableName: string, tenantId: number, value: string, owner: ClaimOwner): TransactionItem => ({ Put: claimPut(tableName, tenantId, value, owner) }),

    /**
     * Takes the value for `owner`, or keeps it when `owner` holds it already (a write in several transactions that
     * claims first and may be resumed); fails (ConditionalCheckFailed) when anyone else holds it.
     */
    claimOrKeep: (tableName: string, tenantId: number, value: string, owner: ClaimOwner): TransactionItem => {
      const put = claimPut(tableName, tenantId, value, owner);
      return {
        Put: {
          ...put,
          ConditionExpression: `${put.ConditionExpression} OR #owner = :owner`,
          ExpressionAttributeNames: { '#owner': ownerAttribute },
          ExpressionAttributeValues: { ':owner': owner },
        },
      };
    },

    /**
     * Gives the value back; fails (ConditionalCheckFailed) when another owner holds it. A claim that is not there is
     * given back already: one stored under an earlier normal form of its value (1ed1007 folded dashes, case and
     * invisible characters, with no migration of stored claims) has another key, and requiring it made the record's
     * delete or rename a conflict for ever (found by a bad-day review).
     */
    release(tableName: string, tenantId: number, value: string, owner: ClaimOwner): TransactionItem {
      return {
        Delete: {
          TableName: tableName,
          Key: key(tenantId, value),
          ConditionExpression: 'attribute_not_exists(#owner) OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': ownerAttribute },
          ExpressionAttributeValues: { ':owner': owner },
        },
      };
    },

    /** Who holds the value now (strongly consistent), if anyone. */
    async owner({ client, tableName }: TableContext, tenantId: number, value: string): Promise<ClaimOwner | undefined> {
      const claimKey = key(tenantId, value);
      // A value whose key no claim can have (longer than a sort key may be once normalised): held by no one.
      if (!keyValueFits(claimKey.pk, 'partition') || !keyValueFits(claimKey.sk, 'sort')) return undefined;
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: claimKey, ConsistentRead: true }));
      const owner: unknown = Item?.[ownerAttribute];
      return typeof owner === 'number' || typeof owner === 'string' ? owner : undefined;
    },
  };
};

export type Claim = ReturnType<typeof defineClaim>;

/**
 * The claim actions of a record whose claimed value may change: nothing when it keeps the same value (in any
 * spelling with the same normal form), a release of the old value and a claim of the new one otherwise. `undefined`
 * means "holds no claim" (e.g. an inactive record).
 */
export const claimChanges = (
  claim: Claim,
  tableName: string,
  tenantId: number,
  owner: ClaimOwner,
  previousValue: string | undefined,
  nextValue: string | undefined,
): { release?: TransactionItem; claim?: TransactionItem } => {
  const before = previousValue === undefined ? undefined : normaliseClaimValue(previousValue);
  const after = nextValue === undefined ? undefined : normaliseClaimValue(nextValue);
  if (before === after) return {};
  return {
    ...(previousValue !== undefined ? { release: claim.release(tableName, tenantId, previousValue, owner) } : {}),
    ...(nextValue !== undefined ? { claim: claim.claim(tableName, tenantId, nextValue, owner) } : {}),
  };
};
