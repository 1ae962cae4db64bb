/** The wall clock, as the dependencies' required `now` (tests hand a clock they move instead). */
export const systemClock = (): Date => new Date();
