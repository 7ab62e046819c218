// A Mocha reporter that prints each test with its file and status as one JSON document.
const Mocha = require('mocha');
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;
module.exports = function FileReporter(runner) {
  Mocha.reporters.Base.call(this, runner);
  const tests = [];
  const add = (status) => (t) => tests.push({ file: t.file, fullTitle: t.fullTitle(), status });
  runner.on(EVENT_TEST_PASS, add('passed'));
  runner.on(EVENT_TEST_FAIL, add('failed'));
  runner.on(EVENT_TEST_PENDING, add('pending'));
  runner.once(EVENT_RUN_END, () => process.stdout.write(JSON.stringify({ stats: this.stats, tests }, null, 2) + '\n'));
};
