// Generated from src/model/kinds/declarations.ts by src/manifest/generate-schemas.ts; do not edit.
// Regenerate: npm run generate
import type { DeclaredField } from '../kind-descriptor.js';

/** Each kind's managed fields as declared, in order, with the JSON type of their values. */
export const DECLARED_FIELDS = {
  group: [{ name: "name", json: "string" }, { name: "description", json: "string" }],
  identity: [{ name: "name", json: "string" }, { name: "description", json: "string" }, { name: "claimMatch", json: "object" }, { name: "awsIdentity", json: "object" }, { name: "staticKeys", json: "object" }, { name: "servicePrincipal", json: "string" }],
  role: [{ name: "name", json: "string" }, { name: "description", json: "string" }, { name: "capabilities", json: "array" }],
  repo: [{ name: "name", json: "string" }, { name: "description", json: "string" }, { name: "readme", json: "string" }, { name: "bundles", json: "array" }, { name: "tier", json: "string" }, { name: "aliases", json: "array" }, { name: "activeTags", json: "array" }, { name: "syncConfig", json: "object" }],
  subscription: [{ name: "sink", json: "string" }],
  identityProvider: [{ name: "name", json: "string" }, { name: "description", json: "string" }, { name: "defaultRole", json: "string" }, { name: "oidc", json: "object" }],
  groupMapping: [{ name: "externalGroup", json: "string" }, { name: "role", json: "string" }],
  accountAssociation: [{ name: "name", json: "string" }, { name: "description", json: "string" }, { name: "amazon", json: "object" }, { name: "google", json: "object" }, { name: "azure", json: "object" }, { name: "github", json: "object" }, { name: "chainguard", json: "object" }],
  tag: [{ name: "name", json: "string" }, { name: "digest", json: "string" }, { name: "deprecated", json: "boolean" }],
  terms: [{ name: "docId", json: "string" }],
  roleBinding: [],
  groupInvite: [{ name: "email", json: "string" }, { name: "role", json: "string" }, { name: "expirationTime", json: "string" }, { name: "singleUse", json: "boolean" }],
} as const satisfies Record<string, readonly DeclaredField[]>;
