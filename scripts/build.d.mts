/** Types of scripts/build.mjs for the TypeScript tests and scripts that import it. */
export declare const ROOT: string;
export declare const DIST: string;
export declare function staleReason(): string | null;
export declare function build(): void;
export declare function ensureBuilt(opts?: { quiet?: boolean }): Promise<void>;
