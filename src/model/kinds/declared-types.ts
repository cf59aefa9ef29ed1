/**
 * The TypeScript side of the one declaration (declarations.ts): a kind's field types are its
 * declared fields' static types. Type-only: nothing here exists at run time, so TypeBox is never
 * loaded by platform-sync itself.
 */
import type { Static } from 'typebox';
import type { FieldDeclarations } from './declarations.js';

export type DeclaredKind = keyof FieldDeclarations;

/** The fields of a kind as declared. */
export type Declared<K extends DeclaredKind> = Static<FieldDeclarations[K]>;

/**
 * The declared fields with some given a model type of their own (a role reference resolved to a
 * `RoleKey`, a value live state may hold beyond what a manifest may say). Only declared fields
 * can be given one: a name the declaration lacks makes the type `never`.
 */
export type DeclaredWith<K extends DeclaredKind, R extends object> = [Exclude<keyof R, keyof Declared<K>>] extends [
  never,
]
  ? Omit<Declared<K>, keyof R> & R
  : never;
