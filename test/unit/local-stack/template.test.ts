// Unit: the local stack's reading of synthesized templates: every intrinsic the templates use resolves against
// the local resources, AWS::NoValue removes what it stands in, and what cannot be resolved fails loudly.
import { describe, expect, it } from '@jest/globals';
import { createResolver, exportsOf, UnresolvableError, type AssemblyStack, type CfnTemplate, type LocalPhysical } from '#infra/local/template';
import { roleStatements } from '#infra/local/template-functions';
import { localFunctionEnvironment } from '#infra/local/template-resources';
import { explainRefusal, statementsAllow, type EdgeStatement } from '#infra/local/iam-edge';

const pseudo = { accountId: '123456789012', region: 'us-east-1' };

const stackOf = (stackName: string, template: Partial<CfnTemplate>): AssemblyStack => ({
  stackName,
  template: { Resources: {}, ...template },
  assemblyDir: '/nowhere',
});

const physical: Record<string, LocalPhysical> = {
  Table: { ref: 'business-platform', attributes: { Arn: 'arn:aws:dynamodb:us-east-1:123456789012:table/business-platform' } },
  Queue: { ref: 'http://edge/123456789012/payments', attributes: { Arn: 'arn:aws:sqs:us-east-1:123456789012:payments', QueueName: 'payments' } },
};

const data = stackOf('Data', {
  Resources: { Table: { Type: 'AWS::DynamoDB::Table' }, Queue: { Type: 'AWS::SQS::Queue' }, Unknown: { Type: 'AWS::Foo::Bar' } },
  Parameters: { Stage: { Type: 'String', Default: 'dev' }, Issuer: { Type: 'String' } },
  Conditions: {
    IsDev: { 'Fn::Equals': [{ Ref: 'Stage' }, 'dev'] },
    IsProd: { 'Fn::Not': [{ Condition: 'IsDev' }] },
    Both: { 'Fn::And': [{ Condition: 'IsDev' }, { 'Fn::Or': [{ Condition: 'IsProd' }, { 'Fn::Equals': ['a', 'a'] }] }] },
  },
  Outputs: {
    TableName: { Value: { Ref: 'Table' }, Export: { Name: 'Data:TableName' } },
    QueueArn: { Value: { 'Fn::GetAtt': ['Queue', 'Arn'] }, Export: { Name: { 'Fn::Sub': '${AWS::StackName}:QueueArn' } } },
  },
});

const dataResolver = createResolver({ stack: data, pseudo, physical: (id) => physical[id] });

describe('the template resolver', () => {
  it.each([
    ['Ref of a resource', { Ref: 'Table' }, 'business-platform'],
    ['Ref of a pseudo parameter', { Ref: 'AWS::AccountId' }, '123456789012'],
    ['Ref of a parameter with a Default', { Ref: 'Stage' }, 'dev'],
    ['Fn::GetAtt (list form)', { 'Fn::GetAtt': ['Queue', 'Arn'] }, 'arn:aws:sqs:us-east-1:123456789012:payments'],
    ['Fn::GetAtt (string form)', { 'Fn::GetAtt': 'Queue.QueueName' }, 'payments'],
    ['Fn::Join', { 'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, 'sqs', { Ref: 'AWS::Region' }]] }, 'arn:aws:sqs:us-east-1'],
    ['Fn::Sub with pseudo parameters, attributes and literals', { 'Fn::Sub': '${AWS::Region}/${Queue.QueueName}/${!Literal}' }, 'us-east-1/payments/${Literal}'],
    ['Fn::Sub with a variable map', { 'Fn::Sub': ['${Name}-${AWS::AccountId}', { Name: { Ref: 'Table' } }] }, 'business-platform-123456789012'],
    ['Fn::Select over Fn::Split', { 'Fn::Select': [1, { 'Fn::Split': ['/', { Ref: 'Queue' }] }] }, ''],
    ['Fn::Select of the last segment', { 'Fn::Select': [4, { 'Fn::Split': ['/', { Ref: 'Queue' }] }] }, 'payments'],
    ['Fn::If on a condition', { 'Fn::If': ['IsProd', 'prod-value', { 'Fn::If': ['Both', 'both', 'neither'] }] }, 'both'],
  ])('resolves %s', (_, value, expected) => {
    expect(dataResolver.resolve(value)).toEqual(expected);
  });

  it('drops AWS::NoValue and parameters with neither a local value nor a Default from objects and lists', () => {
    expect(
      dataResolver.resolve({ A: { Ref: 'Issuer' }, B: [1, { Ref: 'AWS::NoValue' }, 2], C: { 'Fn::If': ['IsDev', { Ref: 'AWS::NoValue' }, 'x'] } }),
    ).toEqual({ B: [1, 2] });
  });

  it('takes a parameter value the local stack gives over the Default', () => {
    const resolver = createResolver({ stack: data, pseudo, parameters: { Stage: 'prod' }, physical: (id) => physical[id] });
    expect(resolver.condition('IsProd')).toBe(true);
  });

  it.each([
    ['a resource the local stack does not run', { Ref: 'Unknown' }],
    ['a resource the template does not define', { 'Fn::GetAtt': ['Missing', 'Arn'] }],
    ['an attribute the local stack does not have', { 'Fn::GetAtt': ['Table', 'StreamArn'] }],
    ['an intrinsic it does not support', { 'Fn::Base64': 'x' }],
    ['an import with no exporting stack', { 'Fn::ImportValue': 'Data:TableName' }],
    ['a string from a list', { 'Fn::Join': ['', [['nested']]] }],
  ])('refuses %s, naming it', (_, value) => {
    expect(() => dataResolver.resolve(value, 'Resources.X')).toThrow(UnresolvableError);
  });

  it('resolves Fn::ImportValue through the exporting stack', () => {
    const api = stackOf('Api', { Resources: {} });
    const apiResolver = createResolver({ stack: api, pseudo, physical: () => undefined, importValue: exportsOf(data, dataResolver) });
    expect(apiResolver.resolve({ TABLE_NAME: { 'Fn::ImportValue': 'Data:TableName' }, ARN: { 'Fn::ImportValue': 'Data:QueueArn' } })).toEqual({
      TABLE_NAME: 'business-platform',
      ARN: 'arn:aws:sqs:us-east-1:123456789012:payments',
    });
    expect(() => apiResolver.resolve({ 'Fn::ImportValue': 'Data:Nothing' })).toThrow(/exports no Data:Nothing/);
  });
});

describe('role statements as synthesized', () => {
  const template = stackOf('Api', {
    Resources: {
      Role: { Type: 'AWS::IAM::Role' },
      Table: { Type: 'AWS::DynamoDB::Table' },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: {
            Statement: [
              { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: [{ 'Fn::GetAtt': ['Table', 'Arn'] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/gsi1']] }] },
              { Effect: 'Allow', Action: 'sqs:Send*', Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:payments' } },
              { Effect: 'Deny', Action: 'dynamodb:Query', Resource: { 'Fn::Sub': '${Table.Arn}/index/gsi1' } },
              { Effect: 'Allow', NotAction: 'iam:*', Resource: '*' },
              { Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: 'Topic' } },
            ],
          },
        },
      },
      Other: { Type: 'AWS::IAM::Policy', Properties: { Roles: [{ Ref: 'OtherRole' }], PolicyDocument: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] } } },
    },
  });
  const resolver = createResolver({ stack: template, pseudo, physical: (id) => physical[id] });
  const skipped: string[] = [];
  const { policies, statements } = roleStatements(template, resolver, 'Role', (source) => skipped.push(source));
  const tableArn = physical.Table!.attributes!.Arn!;

  it('reads only the policies attached to the role, resolved, and leaves out what it cannot judge', () => {
    expect(policies).toEqual(['Policy']);
    expect(statements.map((statement) => statement.source)).toEqual(['Policy Statement[0]', 'Policy Statement[1]', 'Policy Statement[2]']);
    expect(statements[0]!.resources).toEqual([tableArn, `${tableArn}/index/gsi1`]);
    expect(skipped).toEqual(['Policy Statement[3]', 'Policy Statement[4]']);
  });

  it('is enforced with wildcard actions and explicit denies', () => {
    expect(statementsAllow(statements, { action: 'dynamodb:GetItem', resource: tableArn })).toBe(true);
    expect(statementsAllow(statements, { action: 'DynamoDB:getitem', resource: tableArn })).toBe(true);
    expect(statementsAllow(statements, { action: 'dynamodb:PutItem', resource: tableArn })).toBe(false);
    expect(statementsAllow(statements, { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:123456789012:payments' })).toBe(true);
    expect(statementsAllow(statements, { action: 'sqs:ReceiveMessage', resource: 'arn:aws:sqs:us-east-1:123456789012:payments' })).toBe(false);
    expect(statementsAllow(statements, { action: 'dynamodb:Query', resource: tableArn })).toBe(true);
    expect(statementsAllow(statements, { action: 'dynamodb:Query', resource: `${tableArn}/index/gsi1` })).toBe(false);
  });

  it('explains a refusal: the function, the action, the resource, what is allowed there, and the statement that would allow it', () => {
    const identity = { functionName: 'TenantLocationDelete', statements: statements as EdgeStatement[], policySource: 'Api Policy' };
    const explained = explainRefusal(identity, { action: 'dynamodb:PutItem', resource: tableArn });
    expect(explained).toContain('AccessDeniedException: TenantLocationDelete may not dynamodb:PutItem on ' + tableArn);
    expect(explained).toContain('dynamodb:GetItem, dynamodb:Query (Policy Statement[0])');
    expect(explained).toContain(JSON.stringify({ Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: tableArn }));
    expect(explainRefusal(identity, { action: 'dynamodb:Query', resource: `${tableArn}/index/gsi1` })).toContain('explicitly denied by Policy Statement[2]');
  });
});

describe('a function environment locally', () => {
  const substitutes = { edgeEndpoint: 'http://edge', authHs256Secret: 'dev-secret' };

  it('substitutes what no local service provides and leads every AWS endpoint to the IAM edge', () => {
    expect(
      localFunctionEnvironment({ TABLE_NAME: 't', WEBHOOK_SECRET_ARN: 'arn:secret', SECRET_FIELDS_KEY_ARN: 'arn:key', AUTH_AUDIENCE: '' }, substitutes),
    ).toEqual({
      TABLE_NAME: 't',
      // The local Secrets Manager holds the secret and the local KMS the key: the ARNs stay, their calls lead to the edge.
      WEBHOOK_SECRET_ARN: 'arn:secret',
      SECRET_FIELDS_KEY_ARN: 'arn:key',
      AUTH_HS256_SECRET: 'dev-secret',
      AWS_ENDPOINT_URL: 'http://edge',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://edge',
      AWS_ENDPOINT_URL_SQS: 'http://edge',
      AWS_ENDPOINT_URL_SCHEDULER: 'http://edge',
      AWS_ENDPOINT_URL_KMS: 'http://edge',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://edge',
    });
  });

  it('keeps an issuer the local stack was given', () => {
    const environment = localFunctionEnvironment({ AUTH_JWKS_URL: 'https://issuer/jwks', AUTH_ISSUER: 'https://issuer/' }, substitutes);
    expect(environment).toMatchObject({ AUTH_JWKS_URL: 'https://issuer/jwks', AUTH_ISSUER: 'https://issuer/' });
    expect(environment).not.toHaveProperty('AUTH_HS256_SECRET');
  });
});
