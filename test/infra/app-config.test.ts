// Infra tests: deploy-time settings come from CDK context, are checked before anything is built, and the
// authorizer's issuer settings are either baked in from context or left to stack parameters.
import { App } from 'aws-cdk-lib';
import { readAppConfig } from '../../infra/app-config';
import { synthesize, type Synthesized } from './synthesize';

const configFor = (context: Record<string, unknown>) => readAppConfig(new App({ context }).node);

describe('app config', () => {
  it('defaults to dev: disposable data, no deletion protection', () => {
    expect(configFor({})).toMatchObject({ stage: 'dev', removalPolicy: 'destroy', deletionProtection: false, auth: {} });
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
          LOG_LEVEL: 'INFO',
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
  });
});
