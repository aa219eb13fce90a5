// Data layer: the one definition of the single table's keys and indexes. The CDK stack and the local stack both
// create the table from this object, so the two can never drift.

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** What the index serves: shown in the access-pattern table of shared/README.md. */
  readonly serves: string;
}

export const tableDefinition = {
  /** Logical name; the deployed name is set by CloudFormation and reaches functions as TABLE_NAME. */
  logicalName: 'BusinessPlatform',
  localTableName: 'business-platform',
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Attribute that DynamoDB TTL deletes expired items by (unix seconds). */
  timeToLiveAttribute: 'expiresAt',
  // Generic and sparse: an item carries gsiNpk/gsiNsk only when it belongs to that index's access pattern. Each
  // area names its patterns in its keys module (`export const activeLocationsByName = gsi1`). They are declared before
  // any data exists, because adding an index to a live table is a migration (one index per stack update).
  globalSecondaryIndexes: [
    {
      indexName: 'gsi1',
      partitionKey: 'gsi1pk',
      sortKey: 'gsi1sk',
      serves: "a tenant's active locations ordered by normalised name (GetAll, GetByName prefix)",
    },
    {
      indexName: 'gsi2',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      serves: "a tenant's delivery-receipt headers by DeliveryDate, write-sharded in 4 (Search sorted by DeliveryDate, date range as key condition)",
    },
    {
      indexName: 'gsi3',
      partitionKey: 'gsi3pk',
      sortKey: 'gsi3sk',
      serves: "a tenant's delivery-receipt headers by CreatedDateTime_utc, write-sharded in 4 (Search sorted by CreatedDateTime_utc)",
    },
    {
      indexName: 'gsi4',
      partitionKey: 'gsi4pk',
      sortKey: 'gsi4sk',
      serves: "a tenant's delivery-receipt headers by normalised RefNumber, write-sharded in 4 (Search sorted by RefNumber)",
    },
    {
      indexName: 'gsi5',
      partitionKey: 'gsi5pk',
      sortKey: 'gsi5sk',
      serves: "a tenant's delivery-receipt headers by ID, write-sharded in 4 (Search sorted by ID)",
    },
    {
      indexName: 'gsi6',
      partitionKey: 'gsi6pk',
      sortKey: 'gsi6sk',
      serves:
        'scheduled tasks whose schedule is not known to be in line, oldest save first, write-sharded in 4 (sparse: set by a save, cleared when its schedule sync succeeds; read by the schedule reconciler)',
    },
  ] as const satisfies readonly IndexDefinition[],
} as const;

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['indexName'];

/** The definition of one index, by its generic name. */
export const globalIndex = <Name extends IndexName>(indexName: Name): IndexDefinition & { readonly indexName: Name } => {
  const index = tableDefinition.globalSecondaryIndexes.find((candidate) => candidate.indexName === indexName);
  if (!index) throw new Error(`index ${indexName} is not defined`);
  return index as IndexDefinition & { readonly indexName: Name };
};

/** Every key attribute is a string: composed values such as `T#42#LOC#0000000007`. */
export const keyAttributeNames = [
  tableDefinition.partitionKey,
  tableDefinition.sortKey,
  ...tableDefinition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
] as const;

/** DynamoDB actions a function may be granted on the table (and its indexes); never a wildcard. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem';
