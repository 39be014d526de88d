/** Waits for `work` at most `ms`: 'done' when it settled in time (either way), 'late' when not. */
export async function within(work: Promise<unknown>, ms: number): Promise<'done' | 'late'> {
  if (ms === Infinity)
    return work.then(
      () => 'done',
      () => 'done',
    );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), 'late')));
  try {
    return await Promise.race([
      work.then(
        () => 'done' as const,
        () => 'done' as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
