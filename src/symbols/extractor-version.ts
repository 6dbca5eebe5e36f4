// Apart from the extractor, so that the caches that key on it load without tree-sitter's code.

/** Bump when extraction changes what it reports: cached results of older versions are not reused. */
export const EXTRACTOR_VERSION = 15;
