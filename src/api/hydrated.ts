/**
 * Reading references out of API objects: a role binding names its identity, role and group
 * as hydrated objects (`identity: {uid, …}`), and a create body by flat `…Uid` fields.
 */
import type { ApiObject } from './types.js';

/** Uid of a hydrated reference, else of the flat `<field>Uid`; '' when neither is there. */
export function referencedUid(obj: ApiObject, field: string): string {
  const hydrated = obj[field];
  if (hydrated && typeof hydrated === 'object' && typeof (hydrated as { uid?: unknown }).uid === 'string') {
    return (hydrated as { uid: string }).uid;
  }
  const flat = obj[`${field}Uid`];
  return typeof flat === 'string' ? flat : '';
}
