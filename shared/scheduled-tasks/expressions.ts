// Moved to the platform layer (shared/schedules/expressions.ts: infra/local reads it and may import no area);
// re-exported here while other branches of issue 17 merge. Import shared/schedules/expressions.ts.
export * from '../schedules/expressions';
