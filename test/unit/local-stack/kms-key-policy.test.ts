// Unit: the IAM edge's KMS accesses (the key a request names, its encryption context as condition keys) and its
// evaluation of a same-account key's policy beside the caller's role policies, as AWS documents it: the key policy
// allows by itself when it names the role, delegates to IAM when it names the account root, refuses otherwise.
import { describe, expect, it } from '@jest/globals';
import { accountRootArn, keyPolicyDecision, kmsAccess, statementsAllow, type EdgeIdentity, type ResourcePolicy } from '#infra/local/iam-edge';
import { kmsKeyArn, type KeyPolicyStatement } from '#infra/local/kms';

const keyId = '00000000-0000-4000-8000-000000000001';
const keyArn = kmsKeyArn(keyId);
const roleArn = 'arn:aws:iam::123456789012:role/BusinessPlatform-Api-ScheduledTaskSaveRole1234';
const identity: EdgeIdentity = {
  functionName: 'scheduledTaskSave',
  roleArn,
  statements: [
    {
      actions: ['kms:GenerateDataKey'],
      resources: [keyArn],
      conditions: { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['tenant', 'task', 'field'] } },
    },
  ],
};
const delegating: KeyPolicyStatement = {
  effect: 'Allow',
  principals: [accountRootArn],
  actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
  resources: [keyArn],
  conditions: { ArnLike: { 'aws:PrincipalArn': 'arn:aws:iam::123456789012:role/BusinessPlatform-Api-*' } },
  source: 'BusinessPlatform-Data SecretFieldsKey KeyPolicy.Statement[1]',
};
const policy = (...statements: KeyPolicyStatement[]): ResourcePolicy => ({ statements, source: 'BusinessPlatform-Data SecretFieldsKey' });
const access = (operation = 'GenerateDataKey', context: Record<string, string> = { tenant: '1', task: '2', field: 'TokenSecret' }) => {
  const [required] = kmsAccess(operation, { KeyId: keyArn, EncryptionContext: context }, (id) => (id === keyArn || id === keyId ? keyArn : undefined));
  return { ...required!, context: { ...required!.context, 'aws:PrincipalArn': roleArn } };
};

describe('KMS accesses', () => {
  it('name the key and carry the encryption context as condition keys', () => {
    expect(kmsAccess('GenerateDataKey', { KeyId: keyId, EncryptionContext: { tenant: '1', field: 'x' } }, () => keyArn)).toEqual([
      { action: 'kms:GenerateDataKey', resource: keyArn, context: { 'kms:EncryptionContextKeys': ['tenant', 'field'], 'kms:EncryptionContext:tenant': '1', 'kms:EncryptionContext:field': 'x' } },
    ]);
  });

  it('need the action on * for a key the local KMS does not hold', () => {
    expect(kmsAccess('Decrypt', { KeyId: 'alias/unknown' }, () => undefined)[0]).toMatchObject({ action: 'kms:Decrypt', resource: '*' });
  });
});

describe('a key policy beside the role policies', () => {
  it('delegates to the role policies through the account root, which then decide', () => {
    expect(keyPolicyDecision(policy(delegating), identity, access())).toMatchObject({ kind: 'delegated' });
    expect(statementsAllow(identity.statements, access())).toBe(true);
    // A context key the role's condition does not list: the role policy refuses.
    expect(statementsAllow(identity.statements, access('GenerateDataKey', { tenant: '1', owner: 'x' }))).toBe(false);
    // An action the role does not hold: delegated, and refused by the role policy.
    expect(statementsAllow(identity.statements, access('Decrypt'))).toBe(false);
  });

  it('allows by itself when it names the role', () => {
    expect(keyPolicyDecision(policy({ ...delegating, principals: [roleArn], conditions: {} }), identity, access('Decrypt'))).toEqual({ kind: 'allowed' });
  });

  it('refuses, explained, when no statement covers the caller (the key policy lost its statement, or its condition fails)', () => {
    const refused = keyPolicyDecision(policy(), identity, access());
    expect(refused).toMatchObject({ kind: 'refused' });
    expect(refused.kind === 'refused' && refused.explanation).toContain(`scheduledTaskSave may not kms:GenerateDataKey on ${keyArn}: no statement of the key policy (BusinessPlatform-Data SecretFieldsKey) allows it`);
    const otherRole = { ...identity, roleArn: 'arn:aws:iam::123456789012:role/Someone-Else' };
    const notCovered = keyPolicyDecision(policy(delegating), otherRole, { ...access(), context: { ...access().context, 'aws:PrincipalArn': otherRole.roleArn } });
    expect(notCovered.kind === 'refused' && notCovered.explanation).toContain('KeyPolicy.Statement[1]');
  });

  it('refuses on an explicit Deny naming the caller, whatever else allows', () => {
    const deny: KeyPolicyStatement = { effect: 'Deny', principals: ['*'], actions: ['kms:*'], resources: [keyArn], source: 'Deny statement' };
    expect(keyPolicyDecision(policy(delegating, deny), identity, access())).toMatchObject({ kind: 'refused', explanation: expect.stringContaining('explicitly denied by the key policy (Deny statement)') });
  });
});
