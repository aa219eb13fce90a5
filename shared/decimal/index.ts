// Core: exact fixed-point decimals (see fixed-point.ts). Money (shared/money) is the currency layer on top.
export * from './fixed-point';
export * from './json-number';
