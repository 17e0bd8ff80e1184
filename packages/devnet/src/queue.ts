const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `task` after every earlier task with the same `key` has settled (per-process mutex), so
 * that transactions of one account are sent one at a time and their nonces never collide.
 */
export function serialize<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
