// Observability: the one function of `semver` that aws-xray-sdk-core calls, for the `#lazy/tracer` chunk
// (infra/build/lazy-chunks.mjs `chunkReplacements`). The X-Ray SDK requires `semver` only in its AWS SDK v2 patcher
// (`patchers/aws_p.js`: `semver.gte(AWS.VERSION, '2.7.15')` when a v2 client is captured), which the service never
// calls (its clients are v3: tracing.ts). The package is 28 KiB of the chunk's 124 and builds its regular
// expressions when it loads, on every traced cold start; this is SemVer 2.0.0's precedence (section 11) in a few lines.

const versionPattern = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

interface Version {
  readonly core: readonly [bigint, bigint, bigint];
  readonly prerelease: readonly string[];
}

const parse = (text: string): Version => {
  const match = versionPattern.exec(String(text).trim());
  if (!match) throw new TypeError(`Invalid Version: ${text}`);
  return { core: [BigInt(match[1]!), BigInt(match[2]!), BigInt(match[3]!)], prerelease: match[4] ? match[4].split('.') : [] };
};

const numeric = /^\d+$/;

/** Precedence of two prerelease identifiers: numeric ones numerically and below alphanumeric ones, which compare in ASCII order. */
const compareIdentifiers = (a: string, b: string): number => {
  const aNumeric = numeric.test(a);
  const bNumeric = numeric.test(b);
  if (aNumeric && bNumeric) return Math.sign(Number(BigInt(a) - BigInt(b)));
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
};

/** -1, 0 or 1 as `a` has lower, equal or higher precedence than `b` (build metadata ignored). */
export const compare = (a: string, b: string): number => {
  const left = parse(a);
  const right = parse(b);
  for (let index = 0; index < 3; index += 1) {
    if (left.core[index] !== right.core[index]) return left.core[index]! < right.core[index]! ? -1 : 1;
  }
  // A version without prerelease identifiers has higher precedence than the same version with some.
  if (left.prerelease.length === 0 || right.prerelease.length === 0) return Math.sign(right.prerelease.length - left.prerelease.length);
  for (let index = 0; index < Math.max(left.prerelease.length, right.prerelease.length); index += 1) {
    const l = left.prerelease[index];
    const r = right.prerelease[index];
    if (l === undefined || r === undefined) return l === undefined ? -1 : 1;
    const order = compareIdentifiers(l, r);
    if (order !== 0) return order;
  }
  return 0;
};

/** Whether version `a` is greater than or equal to `b` (semver's `gte`). */
export const gte = (a: string, b: string): boolean => compare(a, b) >= 0;
