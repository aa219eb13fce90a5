// Observability: the Tracer as a module of its own. Functions load it only when tracing is on (tracing.ts): in a
// function's asset it is `tracer.mjs`, built beside `index.mjs` (infra/constructs/operation-function.ts
// `lazyModules`), so the X-Ray SDK (aws-xray-sdk-core, semver, cls-hooked: about 120 KiB minified) is no part of the
// bundle every cold start reads.
export { Tracer } from '@aws-lambda-powertools/tracer';
