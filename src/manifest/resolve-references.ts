/**
 * How a manifest names other resources (DESIGN.md §3 "References"): a role binding's identity
 * and role — a sibling by name, a path from the org root, a built-in role, or a uid the manifests
 * do not manage — and a role field of another kind (an identity provider's defaultRole). Each
 * resolves against what the manifests declare; one that does not is reported where it is written,
 * with what was meant when that can be guessed. Pure.
 */
import { joinPath, parentPath, type IdentityKey, type RoleKey } from '../model/address.js';
import { BUILTIN_ROLE_NAMES } from '../model/kinds.js';
import type { ResolveOptions } from './resolve.js';
import {
  asString,
  fieldKey,
  siteAt,
  type GroupRecord,
  type Obj,
  type ReferenceIndex,
  type Site,
} from './resolve-tables.js';
import { didYouMean, formatList, suggestClosest } from '../util/suggest.js';

const BUILTIN_ROLES: ReadonlySet<string> = new Set(BUILTIN_ROLE_NAMES);
/** The key of a binding's reference by uid (spelt once, not per binding). */
const UID_FIELD = { identity: 'identityUid', role: 'roleUid' } as const;

/** Resolves references against the declared identities and roles, reporting through `report`. */
export class ReferenceResolver {
  constructor(
    private readonly identities: ReferenceIndex,
    private readonly roles: ReferenceIndex,
    private readonly groups: ReadonlyMap<string, GroupRecord>,
    private readonly options: ResolveOptions,
    private readonly report: (site: Site, message: string, target?: 'key' | 'value') => void,
    private readonly groupLabel: (path: string) => string,
  ) {}

  /** Exactly one of `<field>` / `<field>Uid`; reports none-or-both and returns which is set. */
  private pickReference(
    site: Site,
    groupPath: string,
    value: Obj,
    field: 'identity' | 'role',
  ): { ref: string; refKey: string } | { uid: string } | undefined {
    const refKey = fieldKey(value, field, 'roleBinding');
    const uidKey = fieldKey(value, UID_FIELD[field], 'roleBinding');
    const ref = asString(value[refKey]);
    const uid = asString(value[uidKey]);
    if (ref !== undefined && uid !== undefined) {
      // Points at whichever of the two keys comes second: that is where the contradiction appears.
      const [first, second] = [refKey, uidKey].map((key) => site.doc.locate(site.pointer.concat(key), 'key'));
      const later =
        first!.line > second!.line || (first!.line === second!.line && first!.column > second!.column)
          ? refKey
          : uidKey;
      this.report(
        siteAt(site, later),
        `ambiguous ${field} in role binding of ${this.groupLabel(groupPath)}: both ${field} ${JSON.stringify(ref)} and ${field}Uid ${JSON.stringify(uid)} are given; expected exactly one of ${field}, ${field}Uid`,
        'key',
      );
      return undefined;
    }
    if (ref === undefined && uid === undefined) {
      if (value[refKey] === undefined && value[uidKey] === undefined) {
        const how =
          field === 'identity'
            ? 'identity (a name, or a /path from the org root)'
            : 'role (a custom or built-in role name)';
        this.report(
          site,
          `role binding in ${this.groupLabel(groupPath)} has no ${field}; expected ${how} or ${field}Uid`,
        );
      }
      return undefined; // a wrong type is the schema's to report
    }
    return ref !== undefined ? { ref, refKey } : { uid: uid! };
  }

  resolveIdentityOf(site: Site, groupPath: string, value: Obj): IdentityKey | undefined {
    const picked = this.pickReference(site, groupPath, value, 'identity');
    if (!picked || 'uid' in picked) return picked;
    const { ref, refKey } = picked;
    if (ref.includes('/')) {
      const path = ref.replace(/^\/+/, '');
      if (this.identities.paths.has(path)) return { path };
      if (this.options.complete) {
        this.report(
          siteAt(site, refKey),
          `unknown identity ${JSON.stringify(ref)} in role binding of ${this.groupLabel(groupPath)}: a path is from the org root, and ${this.explainMissingPath('identity', path)}; expected the path of a declared identity, or identityUid for one the manifests do not manage`,
        );
      }
      return undefined;
    }
    const path = joinPath(groupPath, ref);
    if (this.identities.paths.has(path)) return { path };
    if (this.options.complete) {
      const elsewhere = (this.identities.pathsByName.get(ref) ?? []).map((p) => `"/${p}"`);
      const siblings = this.identities.namesByGroup.get(groupPath) ?? [];
      let hint =
        elsewhere.length > 0
          ? ` (did you mean ${elsewhere.join(' or ')}? a name with "/" is a path from the org root)`
          : didYouMean(ref, siblings);
      if (hint === '') {
        // A misspelt name of an identity in another group (`releas-bot` for `/release-bot`).
        const close = suggestClosest(ref, [...this.identities.pathsByName.keys()]);
        const paths = close === undefined ? [] : (this.identities.pathsByName.get(close) ?? []).map((p) => `"/${p}"`);
        if (paths.length > 0)
          hint = ` (did you mean ${paths.join(' or ')}? a name with "/" is a path from the org root)`;
      }
      const expected =
        siblings.length > 0
          ? `expected one of ${formatList(siblings)}`
          : `${this.groupLabel(groupPath)} declares no identities`;
      this.report(
        siteAt(site, refKey),
        `unknown identity ${JSON.stringify(ref)} in role binding of ${this.groupLabel(groupPath)}: a bare name is an identity of the same group; ${expected}${hint}`,
      );
    }
    return undefined;
  }

  resolveRoleOf(site: Site, groupPath: string, value: Obj): RoleKey | undefined {
    const picked = this.pickReference(site, groupPath, value, 'role');
    if (!picked || 'uid' in picked) return picked;
    // Most bindings name a role that is there: the text naming the binding is made only for a message.
    return (
      this.findRole(groupPath, picked.ref) ??
      this.reportUnfoundRole(
        site,
        picked.refKey,
        groupPath,
        picked.ref,
        `role binding of ${this.groupLabel(groupPath)}`,
      )
    );
  }

  /**
   * The role `ref` names from `groupPath` when there is one it may use (see resolveRoleName),
   * else undefined; reports nothing. The groups up to the org are tried only when the manifests
   * declare some custom role: else a built-in role is found without a path made per ancestor.
   */
  private findRole(groupPath: string, ref: string): RoleKey | undefined {
    if (ref.includes('/')) {
      const path = ref.replace(/^\/+/, '');
      return this.roles.paths.has(path) && isGroupOrAncestor(parentPath(path), groupPath) ? { path } : undefined;
    }
    if (this.roles.paths.size > 0) {
      // Nearest first: the binding's own group, then each ancestor up to the org.
      for (let g = groupPath; ; g = parentPath(g)) {
        const path = joinPath(g, ref);
        if (this.roles.paths.has(path)) return { path };
        if (g === '') break;
      }
    }
    return BUILTIN_ROLES.has(ref) ? { builtin: ref } : undefined;
  }

  /**
   * A role named by a resource of `groupPath` (a binding, an identity provider's default role):
   * a path from the org root, else the nearest custom role of the group or its ancestors, else a
   * built-in. The reference is `refKey` of the item at `at` (its site is made only for a message);
   * `what` names the referring place in messages ("role binding of org \"acme\"").
   */
  resolveRoleName(at: Site, refKey: string, groupPath: string, ref: string, what: string): RoleKey | undefined {
    return this.findRole(groupPath, ref) ?? this.reportUnfoundRole(at, refKey, groupPath, ref, what);
  }

  /** Says why `ref` names no role `groupPath` may use (findRole found none); undefined. */
  private reportUnfoundRole(at: Site, refKey: string, groupPath: string, ref: string, what: string): undefined {
    if (ref.includes('/')) {
      const path = ref.replace(/^\/+/, '');
      if (this.roles.paths.has(path)) {
        // The API refuses it too: a binding may only use custom roles of its group or its ancestors.
        this.report(
          siteAt(at, refKey),
          `role ${JSON.stringify(ref)} in ${what} belongs to ${this.groupLabel(parentPath(path))}, which is not this group or one of its ancestors; it may use the custom roles of its own group and its ancestors, or a built-in role`,
        );
        return undefined;
      }
      if (this.options.complete) {
        this.report(
          siteAt(at, refKey),
          `unknown role ${JSON.stringify(ref)} in ${what}: a path is from the org root, and ${this.explainMissingPath('role', path)}; expected the path of a declared custom role of this group or its ancestors, or roleUid`,
        );
      }
      return undefined;
    }
    if (this.options.complete) {
      const visible: string[] = [];
      for (let g = groupPath; ; g = parentPath(g)) {
        visible.push(...(this.roles.namesByGroup.get(g) ?? []));
        if (g === '') break;
      }
      const custom =
        visible.length > 0
          ? `a custom role of this group or its ancestors (${formatList(visible)})`
          : 'a custom role of this group or its ancestors (none are declared)';
      const elsewhere = (this.roles.pathsByName.get(ref) ?? []).map((p) => this.groupLabel(parentPath(p)));
      const note =
        elsewhere.length > 0
          ? `; a custom role ${JSON.stringify(ref)} exists in ${elsewhere.join(' and ')}, but only custom roles of its own group and its ancestors may be used`
          : didYouMean(ref, [...visible, ...BUILTIN_ROLE_NAMES]);
      this.report(
        siteAt(at, refKey),
        `unknown role ${JSON.stringify(ref)} in ${what}; expected ${custom} or a built-in role (${BUILTIN_ROLE_NAMES.join(', ')})${note}`,
      );
    }
    return undefined;
  }

  /** Why a path from the org root names nothing: its group is not declared, or lacks the name. */
  private explainMissingPath(kind: 'identity' | 'role', path: string): string {
    const group = parentPath(path);
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!this.groups.has(group)) {
      return `there is no group ${JSON.stringify(group)}${didYouMean(
        group,
        [...this.groups.keys()].filter((g) => g !== ''),
      )}`;
    }
    const names = (kind === 'identity' ? this.identities.namesByGroup : this.roles.namesByGroup).get(group) ?? [];
    const what = kind === 'identity' ? 'identity' : 'custom role';
    const hint = didYouMean(name, names) || (names.length > 0 ? ` (it declares ${formatList(names)})` : '');
    return `${this.groupLabel(group)} declares no ${what} ${JSON.stringify(name)}${hint}`;
  }
}

/** True when `owner` is `group` itself or one of its ancestors (the org '' is everyone's). */
function isGroupOrAncestor(owner: string, group: string): boolean {
  return owner === '' || owner === group || group.startsWith(`${owner}/`);
}
