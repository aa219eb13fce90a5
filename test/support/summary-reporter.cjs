// Test support: prints one plain closing line, "N passed, N failed, N skipped", that any CI can read.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
