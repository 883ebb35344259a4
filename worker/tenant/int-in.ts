import * as v from "valibot";

/** An integer between `min` and `max` (inclusive), each bound named in its error: for configuration fields. */
export const intIn = (min: number, max: number) =>
  v.pipe(
    v.number(),
    v.integer("must be an integer"),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );
