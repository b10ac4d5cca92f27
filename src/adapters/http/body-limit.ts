/**
 * The largest request body accepted, in bytes after decoding any Content-Encoding; larger is the
 * contract's 413. Its own module so that the body reader and the error catalogue both cite it.
 */
export const BODY_LIMIT_BYTES = 65536;
