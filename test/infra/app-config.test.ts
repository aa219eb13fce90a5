// Infra tests: deploy-time settings come from CDK context, are checked before anything is built, and the
// authorizer's issuer settings are either baked in from context or left to stack parameters.
import { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { readAppConfig } from '#infra/app-config';
import { operations } from '#shared/operations/index';
import { stackSettings } from '#shared/operations/settings';
import { logicalIdOf, resourcesOfType, synthesize, type Synthesized } from './synthesize';

const configFor = (context: Record<string, unknown>) => readAppConfig(new App({ context }).node);

describe('app config', () => {
  it('defaults to dev: disposable data, no deletion protection', () => {
    expect(configFor({})).toMatchObject({ stage: 'dev', removalPolicy: 'destroy', deletionProtection: false, auth: {} });
  });

  it('gives every stack setting its default when context names none', () => {
    expect(configFor({}).settings).toEqual({ overReceiptTolerance: '0', tracing: 'true' });
    expect(configFor({ overReceiptTolerancePercent: '2.5' }).settings).toEqual({ overReceiptTolerance: '2.5', tracing: 'true' });
    expect(configFor({ tracing: 'false' }).settings).toEqual({ overReceiptTolerance: '0', tracing: 'false' });
  });

  it('protects data in prod', () => {
    expect(configFor({ stage: 'prod' })).toMatchObject({ stage: 'prod', removalPolicy: 'retain', deletionProtection: true });
  });

  it.each([
    [{ stage: 'production' }, /stage must be one of dev, prod/],
    [{ authJwksUrl: 'http://issuer.example.com/jwks' }, /authJwksUrl must be an https:\/\/ URL/],
    [{ alarmEmail: 'not-an-address' }, /alarmEmail must be an e-mail address/],
    [{ authIssuer: 42 }, /authIssuer must be a string/],
    [{ authIssuer: '' }, /authIssuer must not be empty/],
    [{ authJwksUrl: '' }, /authJwksUrl must be an https:\/\/ URL/],
    [{ overReceiptTolerancePercent: '-1' }, /overReceiptTolerancePercent \(RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT\) must be a percentage/],
    [{ overReceiptTolerancePercent: '1000.01' }, /overReceiptTolerancePercent .* must be a percentage/],
    [{ overReceiptTolerancePercent: '2.125' }, /overReceiptTolerancePercent .* must be a percentage/],
    [{ overReceiptTolerancePercent: '5%' }, /overReceiptTolerancePercent .* must be a percentage/],
    [{ overReceiptTolerancePercent: 5 }, /overReceiptTolerancePercent must be a string/],
  ])('refuses %j', (context, message) => {
    expect(() => configFor(context)).toThrow(message);
  });
});

describe('authorizer settings from context', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize({
      authIssuer: 'https://issuer.example.com/',
      authJwksUrl: 'https://issuer.example.com/.well-known/jwks.json',
      authAudience: 'business-platform-api',
    });
  });
  afterAll(() => synthesized.cleanUp());

  it('bakes them into the authorizer and declares no parameters for them', () => {
    const parameters = Object.keys(synthesized.apiJson.Parameters ?? {});
    expect(parameters.filter((name) => name.startsWith('Auth'))).toEqual([]);
    synthesized.api.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          AUTH_ISSUER: 'https://issuer.example.com/',
          AUTH_JWKS_URL: 'https://issuer.example.com/.well-known/jwks.json',
          AUTH_AUDIENCE: 'business-platform-api',
          POWERTOOLS_SERVICE_NAME: 'business-platform-api',
          POWERTOOLS_TRACE_ENABLED: 'true',
          LOG_LEVEL: 'INFO',
          // Source maps are a build artifact beside the template, not read at run time (infra/README.md, npm run trace).
          NODE_OPTIONS: Match.absent(),
        },
      },
    });
  });
});

describe('stack settings from context reach exactly the functions whose manifest entry names them', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize({ overReceiptTolerancePercent: '2.5' });
  });
  afterAll(() => synthesized.cleanUp());

  it('sets the over-receipt tolerance on delivery-receipt save and add inventory only', () => {
    const variable = stackSettings.overReceiptTolerance.variable;
    const withSetting = resourcesOfType(synthesized.apiJson, 'AWS::Lambda::Function')
      .filter(([, resource]) => {
        const variables = (resource.Properties as { Environment?: { Variables?: Record<string, unknown> } }).Environment?.Variables ?? {};
        return Object.hasOwn(variables, variable);
      })
      .map(([logicalId, resource]) => [logicalId, (resource.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables[variable]]);
    const expected = operations
      .filter((operation) => operation.stackSettings?.includes('overReceiptTolerance'))
      .map((operation) => [logicalIdOf(synthesized.apiStack.operationFunctions.get(operation.operationId)!.function), '2.5']);
    expect(expected.map(([id]) => id)).toHaveLength(2);
    expect(withSetting.sort()).toEqual(expected.sort());
  });
});

describe('the tracing setting reaches every function', () => {
  const functionsOf = (synthesized: Synthesized) =>
    resourcesOfType(synthesized.apiJson, 'AWS::Lambda::Function')
      .map(([, resource]) => resource.Properties as { TracingConfig?: { Mode: string }; Environment?: { Variables?: Record<string, unknown> } })
      .filter((properties) => properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'business-platform-api');

  it.each([
    [{}, { Mode: 'Active' }, 'true'],
    [{ tracing: 'true' }, { Mode: 'Active' }, 'true'],
    // No TracingConfig: X-Ray is off, and no X-Ray statement is added to the role.
    [{ tracing: 'false' }, undefined, 'false'],
  ])('context %j: TracingConfig %j, POWERTOOLS_TRACE_ENABLED=%s on every function', (context, mode, variable) => {
    const synthesized = synthesize(context);
    try {
      const functions = functionsOf(synthesized);
      expect(functions.length).toBe(operations.length + 1 + synthesized.apiStack.queueConsumers.size);
      for (const properties of functions) {
        expect(properties.TracingConfig).toEqual(mode);
        expect(properties.Environment?.Variables?.POWERTOOLS_TRACE_ENABLED).toBe(variable);
      }
    } finally {
      synthesized.cleanUp();
    }
  });

  it('refuses a tracing value other than true or false', () => {
    expect(() => synthesize({ tracing: 'on' })).toThrow(/tracing \(POWERTOOLS_TRACE_ENABLED\) must be true or false/);
  });
});
