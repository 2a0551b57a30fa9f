/** Runs `work` and counts the event loop's turns meanwhile (setImmediate): work that blocks lets it turn once at most. */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let working = true;
  const turn = () => {
    turns++;
    if (working) setImmediate(turn);
  };
  setImmediate(turn);
  try {
    return { result: await work(), turns };
  } finally {
    working = false;
  }
}
