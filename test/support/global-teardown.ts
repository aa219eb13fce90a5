// Test support: jest globalTeardown of the integration and e2e projects. Stops the stack global-setup.ts started
// and waits until it and its DynamoDB Local JVM are gone.
export default async function globalTeardown(): Promise<void> {
  const stack = globalThis.__localStack;
  globalThis.__localStack = undefined;
  await stack?.stop();
}
