// Test support (jest setupFilesAfterEnv of the integration project): the services a test runs in-process emit one
// CloudWatch EMF line per business event on stdout (shared/observability/metrics.ts), about 1,500 per run, which
// buried the test output. No integration test reads them (the unit tier tests the emitter; the e2e tier reads the
// stack's own log), so they are off here. process.env is each test file's own under jest, and Powertools reads this
// when the first metric is emitted.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
