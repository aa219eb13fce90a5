// Infra, stateful: the resources that hold data (the single table; later the document-events queues). They live
// in their own stack so that deploying new code, which only touches the API stack, can never replace or drop them.
import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../shared/data/table';

export interface DataStackProps extends StackProps {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
}

export class DataStack extends Stack {
  readonly table: ITable;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);

    // `Table` (AWS::DynamoDB::Table) rather than TableV2 (a single-replica GlobalTable): the service runs in one
    // region, the template stays plain, and cdk-nag's PITR rule inspects this resource type (not GlobalTable).
    // No tableName: CloudFormation names it, functions learn it from TABLE_NAME.
    const table = new Table(this, tableDefinition.logicalName, {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      // Traffic is spiky and small; on-demand needs no capacity planning and costs nothing when idle.
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    this.table = table;
  }
}
