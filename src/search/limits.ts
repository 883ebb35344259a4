/** The longest query searched, in characters: a model's request, not a document. */
export const MAX_QUERY_LENGTH = 500;
/** The most distinct words of a query that are scored (the rest are ignored), bounding a search's time. */
export const MAX_QUERY_TERMS = 32;
/** The most tools one search answers. */
export const MAX_SEARCH_RESULTS = 20;
