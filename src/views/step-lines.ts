/**
 * One plan step as plain lines of text: the body the text view colours and the markdown view
 * puts in ```diff blocks. Pure. Multi-line values (markdown text, a description with newlines) are
 * shown as a unified diff made by the `diff` package.
 */
import { escapeValue } from '../io/escape.js';
import { describeRefAddress } from './words.js';
import { lazyRequire } from '../util/lazy-require.js';

/** Loaded when a plan shows a text diff. */
const diff = lazyRequire<typeof import('diff')>('diff');
import type { PlanStep, UidReference } from '../model/plan.js';
import { DESCRIPTORS, descriptorOf } from '../model/kinds.js';
import { referenceUidField, type KindDescriptor } from '../model/kind-descriptor.js';
import { clearedFields } from '../model/step-effect.js';
import type { SecretRef } from '../model/resources.js';

/** How a line is meant: the views colour `add`/`remove`/`change` lines, `context` stays plain. */
export type LineTone = 'add' | 'remove' | 'change' | 'context' | 'header';

export interface StepLine {
  tone: LineTone;
  text: string;
}

const ACTION_SYMBOL = { create: '+', update: '~', delete: '-' } as const;

/** A short, unambiguous rendering of a field value ("text" quoted, lists and objects inline). */
function formatValue(value: unknown): string {
  if (value === undefined) return '(unset)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    // A role as a reference field holds it (an identity provider's defaultRole).
    const keys = Object.keys(value);
    const role = value as { builtin?: string; path?: string };
    if (keys.length === 1 && typeof role.builtin === 'string') return `${role.builtin} (built-in role)`;
    if (keys.length === 1 && typeof role.path === 'string') return `role:${role.path}`;
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${formatValue(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The keys whose values differ between two objects, with both values, in a stable order. */
function objectChanges(before: Record<string, unknown>, after: Record<string, unknown>): [string, unknown, unknown][] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => [k, before[k], after[k]]);
}

function isMultiline(value: unknown): value is string {
  return typeof value === 'string' && value.includes('\n');
}

/** Unified-diff hunks between two texts, without file headers. */
export function diffLines(before: string, after: string): StepLine[] {
  const patch = diff().structuredPatch('before', 'after', before, after, '', '', { context: 3 });
  const lines: StepLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({
      tone: 'context',
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    });
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file" says nothing to a reader here
      const tone: LineTone = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'remove' : 'context';
      lines.push({ tone, text: line });
    }
  }
  return lines;
}

/**
 * The lines of a new multi-line value as {@link diffLines} from nothing shows them, less its hunk
 * header: every line added, the value's last newline ending its last line. Without the `diff`
 * package (≈20 ms of a cold `plan` that creates a resource with a multi-line description).
 */
export function addedLines(value: string): StepLine[] {
  const body = value.endsWith('\n') ? value.slice(0, -1) : value;
  return body.split('\n').map((line) => ({ tone: 'add', text: `+${line}` }));
}

/** A secret as a plan shows it: where it is read from, never what it is. */
function describeSecret(ref: SecretRef): string {
  return `(sensitive: read from ${'fromEnv' in ref ? `$${ref.fromEnv}` : `${JSON.stringify(ref.fromFile)} in the operator's secrets directory`} at apply time)`;
}

function referenceText(ref: UidReference): string {
  return ref.uid !== undefined
    ? `${formatValue(ref.uid)} (${describeRefAddress(ref.address)})`
    : `(known after apply: ${ref.address})`;
}

const INDENT = '    ';

/**
 * One field of a step before layout: a one-line value, or a block of lines (a multi-line
 * text as a diff). One-line values of a step are aligned on their labels, like Terraform's `=`.
 */
/** The fields references are sent in (`identityUid`, `roleUid`), from the kinds that have references. */
const REFERENCE_UID_FIELDS: ReadonlySet<string> = new Set(
  (DESCRIPTORS as readonly KindDescriptor[]).flatMap((d) => (d.references ?? []).map(referenceUidField)),
);

type FieldEntry =
  | { tone: LineTone; field: string; value: string }
  | { tone: LineTone; field: string; block: StepLine[] };

function fieldEntries(step: PlanStep): FieldEntry[] {
  const entries: FieldEntry[] = [];
  const refs = (step.action === 'delete' ? {} : (step.refs ?? {})) as Record<string, UidReference | undefined>;
  if (step.action === 'create') {
    for (const [field, value] of Object.entries(step.after ?? {})) {
      if (REFERENCE_UID_FIELDS.has(field) || refs[field]) continue; // shown below with its address
      if (isMultiline(value)) {
        // All lines are new: a hunk header would say nothing.
        entries.push({ tone: 'add', field, block: addedLines(value) });
      } else entries.push({ tone: 'add', field, value: formatValue(value) });
    }
    for (const field of new Set([...REFERENCE_UID_FIELDS, ...Object.keys(refs)])) {
      const ref = refs[field];
      if (ref) entries.push({ tone: 'add', field, value: referenceText(ref) });
      else if (step.after?.[field] !== undefined)
        entries.push({ tone: 'add', field, value: formatValue(step.after[field]) });
    }
    for (const [path, ref] of Object.entries(step.secrets ?? {}))
      entries.push({ tone: 'add', field: path, value: describeSecret(ref) });
  } else if (step.action === 'update') {
    // Fields the update clears as a side effect (another of an exclusive set replaces them: model/step-effect.ts)
    // are shown too, with the value they held.
    const cleared = clearedFields(step).filter((f) => step.before?.[f] !== undefined);
    for (const field of [...(step.updateMask ?? []), ...cleared]) {
      const before = step.before?.[field];
      const after = step.after?.[field];
      if (isPlainObject(before) && isPlainObject(after)) {
        // Which part of an object changed, not the whole object twice.
        for (const [key, b, a] of objectChanges(before, after))
          entries.push({ tone: 'change', field: `${field}.${key}`, value: `${formatValue(b)} → ${formatValue(a)}` });
      } else if (isMultiline(before) || isMultiline(after)) {
        entries.push({
          tone: 'change',
          field,
          block: diffLines(typeof before === 'string' ? before : '', typeof after === 'string' ? after : ''),
        });
      } else {
        const secret = step.secrets?.[field];
        const ref = refs[field];
        const value = secret
          ? `${describeSecret(secret)} (sent again)`
          : `${formatValue(before)} → ${ref ? referenceText(ref) : formatValue(after)}`;
        entries.push({ tone: 'change', field, value });
      }
    }
  } else {
    // What is about to go, so a reviewer recognises it; a long text by its size only.
    for (const [field, value] of Object.entries(step.before ?? {})) {
      const lines = isMultiline(value) ? value.replace(/\n$/, '').split('\n').length : 0;
      entries.push({ tone: 'remove', field, value: lines > 0 ? `(${lines} lines)` : formatValue(value) });
    }
  }
  return entries;
}

/** The field lines of a step (not its header line): labels aligned, blocks indented under theirs. */
/**
 * A field as the manifests name it (issue 40): `role` where the API says `roleUid`,
 * `externalGroup` where it says `externalGroupId`; a dotted path keeps its tail (`oidc.clientSecret`).
 */
function manifestFieldName(kind: PlanStep['kind'], field: string): string {
  const dot = field.indexOf('.');
  const head = dot < 0 ? field : field.slice(0, dot);
  const descriptor = descriptorOf(kind);
  const reference = descriptor.references?.find((r) => referenceUidField(r) === head);
  const name = reference ?? descriptor.fields.find((f) => (f.apiName ?? f.name) === head)?.name ?? head;
  return dot < 0 ? name : `${name}${field.slice(dot)}`;
}

function fieldLines(step: PlanStep): StepLine[] {
  const entries = fieldEntries(step).map((e) => ({ ...e, field: manifestFieldName(step.kind, e.field) }));
  const width = Math.max(0, ...entries.map((e) => ('value' in e ? e.field.length + 1 : 0)));
  const lines: StepLine[] = [];
  for (const e of entries) {
    if ('value' in e) {
      lines.push({ tone: e.tone, text: `${INDENT}${`${e.field}:`.padEnd(width)} ${e.value}` });
    } else {
      lines.push({ tone: e.tone, text: `${INDENT}${e.field}:` });
      for (const l of e.block) lines.push({ tone: l.tone, text: `${INDENT}  ${l.text}` });
    }
  }
  return lines;
}

/** Header line and field lines of one step. */
export function renderStepLines(step: PlanStep): StepLine[] {
  const tone: LineTone = step.action === 'create' ? 'add' : step.action === 'delete' ? 'remove' : 'change';
  // A rename in place reads as one: `~ rename identity:old-bot → identity:ci-bot`.
  const what =
    step.action === 'update' && step.previousAddress !== undefined
      ? `rename ${step.previousAddress} → ${step.address}`
      : `${step.action} ${step.address}`;
  const header: StepLine = {
    tone,
    // One line: a reason may carry live text (a person's e-mail), escaped like a name.
    text: `${ACTION_SYMBOL[step.action]} ${what}${step.reason ? `  (${escapeValue(step.reason)})` : ''}`,
  };
  return [header, ...fieldLines(step)];
}

/**
 * "Plan: 3 to create, 1 to update, 2 to delete." or the no-change sentence. `untargeted` is
 * `Plan.untargeted`: when --target was given, an empty plan makes no claim about the rest of the org.
 */
export function summaryLine(
  summary: { create: number; update: number; delete: number },
  untargeted?: number,
  refused = false,
): string {
  if (summary.create + summary.update + summary.delete === 0) {
    // A refused plan makes no claim that the org matches: the refusals above say why nothing is planned.
    if (refused) return 'Nothing planned: the plan is refused.';
    // How many changes --target left out is one of the plan's warnings, shown above this line.
    return untargeted === undefined
      ? 'No changes. The org matches the manifests.'
      : 'No changes to the targeted resources.';
  }
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.delete} to delete.`;
}
