/** aedes-persistence's abstract suite (abstract.js), run by test/persistence under node:test. */
declare module 'aedes-persistence/abstract' {
  function abstractPersistence(options: {
    test: typeof import('node:test').test;
    persistence: () => unknown;
    testAsync?: boolean;
    waitForReady?: boolean;
  }): void;
  export = abstractPersistence;
}
