'use strict';
// The jsdom test environment, plus one thing: it hands guard.js the runner's private channel.
//
// The runner `offer()`s a fresh channel right before each test file; the constructor takes it
// (emptying the slot) and parks it on the new window under CHANNEL_KEY, where guard.js picks it
// up and deletes it before the test file - and so the sample - is loaded. The sample therefore
// never holds a function that can report results.

const CHANNEL_KEY = '__pytestCodegenChannel';

let JSDOMEnvironment = null;
let pending = null;
let mark = () => {}; // the runner's profile (runner.js)

// Jest's modern fake timers replace the window's Date (sinon's clock), which guard.js keeps
// read-only: it lets Date be assigned only while `replacing` (Jest installing or removing its
// timers), and afterwards Date must be what Jest put there. Anything else was the sample's
// doing: Date is put back and the file counts a violation.
let replacing = false;
let timerViolation = '';
const replacingTimers = () => replacing;
const takeTimerViolation = () => {
  const violation = timerViolation;
  timerViolation = '';
  return violation;
};

function guardTimerSwaps(timers, global) {
  const original = global.Date;
  for (const name of ['useFakeTimers', 'useRealTimers']) {
    const swap = timers[name];
    timers[name] = function (...args) {
      replacing = true;
      try {
        return swap.apply(this, args);
      } finally {
        const expected = name === 'useRealTimers' ? [original] : [original, timers._clock?.Date];
        if (!expected.includes(global.Date)) {
          global.Date = original; // still replacing: the setter accepts it
          timerViolation = `Date was replaced while Jest's fake timers were ${name === 'useRealTimers' ? 'removed' : 'installed'}`;
        }
        replacing = false;
      }
    };
  }
}

function configure(toolchain, marker) {
  if (typeof marker === 'function') mark = marker;
  const jsdomEnv = require(require.resolve('jest-environment-jsdom', {paths: [toolchain]}));
  JSDOMEnvironment = jsdomEnv.TestEnvironment || jsdomEnv.default;
}

function offer(channel) {
  pending = channel;
}

function makeEnvironment() {
  return class GuardedEnvironment extends JSDOMEnvironment {
    constructor(config, context) {
      mark('environment');
      super(config, context);
      const channel = pending;
      pending = null;
      Object.defineProperty(this.global, CHANNEL_KEY, {
        value: channel,
        configurable: true,
        enumerable: false,
        writable: false,
      });
      if (this.fakeTimersModern) guardTimerSwaps(this.fakeTimersModern, this.global);
      mark('environment end');
    }

    teardown() {
      mark('teardown');
      return super.teardown();
    }
  };
}

// Jest does `new <export>(...)`: a factory returning the instance works, and lets the class be
// built after configure() has located jest-environment-jsdom in the toolchain.
let Environment = null;
module.exports = function GuardedEnvironmentFactory(config, context) {
  if (Environment === null) Environment = makeEnvironment();
  return new Environment(config, context);
};
module.exports.configure = configure;
module.exports.offer = offer;
module.exports.replacingTimers = replacingTimers;
module.exports.takeTimerViolation = takeTimerViolation;
module.exports.CHANNEL_KEY = CHANNEL_KEY;
