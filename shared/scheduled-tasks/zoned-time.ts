// Moved to the platform layer (shared/schedules/zoned-time.ts, beside the expressions built on it); re-exported
// here while other branches of issue 17 merge. Import shared/schedules/zoned-time.ts.
export * from '../schedules/zoned-time';
