/** Live state → manifests (DESIGN.md §5 `export`). */
export { exportManifests, fileNameForGroup, DEFAULT_SCHEMA_REF, ORG_FILE } from './export-manifests.js';
export type { ExportedFile, ExportOptions } from './export-manifests.js';
export { exportOrg, readOrgForExport } from './read-org.js';
export { writeExport, type WriteExportOptions } from './write-export.js';
export { refuseHeldSecrets } from './held-secrets.js';
