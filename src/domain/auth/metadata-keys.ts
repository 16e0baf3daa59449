/** Metadata keys Flipt writes on TOKEN authentications (reference §7.6). */
export const TOKEN_NAME_KEY = 'io.flipt.auth.token.name';
export const TOKEN_DESCRIPTION_KEY = 'io.flipt.auth.token.description';
export const TOKEN_NAMESPACE_KEY = 'io.flipt.auth.token.namespace';

/** The `operation_lock` row that serialises the token cleanup across instances. */
export const TOKEN_CLEANUP_OPERATION = 'cleanup_auth_token';
/** The `operation_lock` row that serialises the bootstrap across instances. */
export const TOKEN_BOOTSTRAP_OPERATION = 'bootstrap_auth_token';
