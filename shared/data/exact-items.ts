// Data layer: reads whose numbers must stay exact. DynamoDB numbers are exact decimals of up to 38 digits; the kit's
// document client turns them into doubles. Receipt completion and stock on hand read through the raw client instead:
// a number becomes a JS number only when the double holds exactly the stored decimal (a line's quantities always do
// under the schema's bounds), else the read fails loudly; stock on hand keeps the decimal text.
import {
  GetItemCommand,
  QueryCommand,
  type AttributeValue,
  type GetItemCommandOutput,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { sameDecimal } from '#shared/decimal/index';
import type { TableContext } from './client';
import type { ItemKey } from './partition';

export type RawItem = Record<string, AttributeValue>;

/**
 * The document client shares the base client's configuration and middleware, so it sends a raw command as the base
 * client would, and the answer keeps DynamoDB's own attribute values (no conversion through a double).
 */
const sendRaw = <Output>(table: TableContext, command: GetItemCommand | QueryCommand): Promise<Output> =>
  (table.client.send as unknown as (command: unknown) => Promise<Output>)(command);

/** A stored number as a JS number, refused unless the double is exactly the stored decimal. */
export const exactNumber = (text: string, name: string): number => {
  const value = Number(text);
  if (!Number.isFinite(value) || !sameDecimal(text, String(value))) {
    throw new Error(`The stored number ${name} has more digits than a JSON number carries exactly.`);
  }
  return value;
};

const plainValue = (value: AttributeValue, name: string): unknown => {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return exactNumber(value.N, name);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.L !== undefined) return value.L.map((entry, index) => plainValue(entry, `${name}[${index}]`));
  if (value.M !== undefined) return plainItem(value.M, `${name}.`);
  if (value.SS !== undefined) return new Set(value.SS);
  if (value.NS !== undefined) return new Set(value.NS.map((entry) => exactNumber(entry, name)));
  throw new Error(`The stored attribute ${name} has a type this reader does not take.`);
};

/** An item with every number checked exact (own attributes only). */
export const plainItem = (item: RawItem, prefix = ''): Record<string, unknown> => {
  const plain: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) plain[name] = plainValue(value, `${prefix}${name}`);
  return plain;
};

/** The decimal text of a stored number attribute (as DynamoDB keeps it), or undefined when the item has none. */
export const storedNumberText = (item: RawItem, name: string): string | undefined => (Object.hasOwn(item, name) ? item[name]?.N : undefined);

const rawKey = (key: ItemKey): RawItem => ({ pk: { S: key.pk }, sk: { S: key.sk } });

/** One item, strongly consistent, with DynamoDB's own attribute values. */
export const getRawItem = async (table: TableContext, key: ItemKey): Promise<RawItem | undefined> => {
  const output = await sendRaw<GetItemCommandOutput>(table, new GetItemCommand({ TableName: table.tableName, Key: rawKey(key), ConsistentRead: true }));
  return output.Item;
};

/** The sort keys a Query takes: those starting with a prefix, or those between two keys (both included). */
export type SortKeyRange = { readonly prefix: string } | { readonly from: string; readonly to: string };

const sortKeyCondition = (range: SortKeyRange): { condition: string; values: RawItem } =>
  'prefix' in range
    ? { condition: 'begins_with(sk, :prefix)', values: { ':prefix': { S: range.prefix } } }
    : { condition: 'sk BETWEEN :from AND :to', values: { ':from': { S: range.from }, ':to': { S: range.to } } };

/** Every item of a partition whose sort key is in `range`, strongly consistent, in sort-key order. */
export const queryRawItems = async (
  table: TableContext,
  partition: string,
  range: SortKeyRange,
  projection?: Pick<QueryCommandInput, 'ProjectionExpression' | 'ExpressionAttributeNames'>,
): Promise<RawItem[]> => {
  const { condition, values } = sortKeyCondition(range);
  const items: RawItem[] = [];
  let ExclusiveStartKey: RawItem | undefined;
  do {
    const page = await sendRaw<QueryCommandOutput>(
      table,
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: `pk = :pk AND ${condition}`,
        ExpressionAttributeValues: { ':pk': { S: partition }, ...values },
        ConsistentRead: true,
        ExclusiveStartKey,
        ...projection,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};
