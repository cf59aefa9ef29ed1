/**
 * The example org (examples/acme) signs people in through an identity provider whose client
 * secret is read from PLATFORM_SYNC_SECRET_ACME_OKTA. Tests that apply the example set it to this
 * made-up value (here for every worker, so library applies, in-process and spawned CLIs all
 * find it); a real setup keeps the real one in its CI's secrets.
 */
export const EXAMPLE_SECRET_ENV = { PLATFORM_SYNC_SECRET_ACME_OKTA: 'acme-okta-secret-made-up-for-tests' } as const;

Object.assign(process.env, EXAMPLE_SECRET_ENV);
