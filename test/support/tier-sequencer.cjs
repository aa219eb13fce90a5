// Test support: the order jest starts test files in (package.json's jest `testSequencer`). Jest's own order runs
// the files that failed last time first, then the slowest by the durations it recorded, and files it has no record
// of by size, last; a fresh clone (CI) has no record, so a chaos file (two minutes, mostly waiting) could start
// last and keep the run going alone. Here a file without a record counts as its tier's typical duration, so the
// tiers that wait longest start first and the unit tier's quick files fill the workers at the end.
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds a file of each tier typically takes (the slow files of a run on the idle 2-core machine, rounded). */
const typicalSeconds = { chaos: 90, e2e: 15, integration: 10, infra: 10, unit: 1 };

class TierSequencer extends Sequencer {
  sort(tests) {
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    for (const test of tests) {
      test.duration = this.time(test) ?? (typicalSeconds[test.context.config.displayName?.name] ?? 1) * 1000;
    }
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      return b.duration - a.duration || size(b) - size(a);
    });
  }
}

module.exports = TierSequencer;
