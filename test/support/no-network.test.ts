import { describe, expect, it } from 'vitest';

describe('test network guard', () => {
  it('makes an outbound call fail loudly, naming the host', async () => {
    await expect(fetch('http://example.com/')).rejects.toThrow();
    const err = await fetch('http://example.com/').catch((e: Error) => e);
    expect((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message).toMatch(
      /tests must use the fake providers/,
    );
  });
});
