/** What anyone else on the main thread sees at each turn of the event loop while `work` runs. */
export async function watchTurns<T, S>(work: () => Promise<T>, look: () => S): Promise<{ result: T; seen: S[] }> {
  const seen: S[] = [];
  let on = true;
  const tick = (): void => {
    if (!on) return;
    seen.push(look());
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), seen };
  } finally {
    on = false;
  }
}

/** How many turns of the event loop ran while `work` was in flight. */
export async function turnsDuring<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  const { result, seen } = await watchTurns(() => work, () => null);
  return { value: result, turns: seen.length };
}
