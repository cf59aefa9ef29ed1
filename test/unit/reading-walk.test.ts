/**
 * The planner reads as its phases (issue 36), checked over the syntax tree with the reading walk
 * of `npm run walk` (scripts/walk.ts): a reader who follows the code from planFromManifests meets
 * load → read → plan and nothing else, and plan() is the list of its phases.
 */
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureWalk, readingWalk } from '../../scripts/walk.js';
import { SRC } from '../support/source-graph.js';

const rel = (file: string) => relative(SRC, file).split('\\').join('/');

describe('the reading walk', () => {
  it('follows names through imports and re-exports, each definition once, and comes back', () => {
    const path = readingWalk(join(SRC, 'plan', 'index.ts'), 'assertSafe');
    // assertSafe → UnsafePlanError (model/errors.ts, through its base class) → back.
    expect(path.map((s) => `${rel(s.file)}${s.name ? `#${s.name}` : ''}`)).toEqual([
      'plan/index.ts#assertSafe',
      'model/errors.ts#UnsafePlanError',
      'model/errors.ts#UserError',
      'model/errors.ts',
      'plan/index.ts',
    ]);
    expect(measureWalk(path)).toMatchObject({ files: 2, climbs: 1, revisits: 1 });
  });

  it('planFromManifests reads as load → read → plan: one definition of each stage, and back', () => {
    const m = measureWalk(readingWalk(join(SRC, 'pipeline.ts'), 'planFromManifests', 2));
    expect(m.stays.map(rel)).toEqual([
      'pipeline.ts',
      // Loading the manifests, knowing the capabilities live holds beyond the catalog (issue 57).
      'live/read-live-state.ts',
      'pipeline.ts',
      'live/read-live-state.ts',
      'pipeline.ts',
      'plan/phases/prepare.ts',
      'pipeline.ts',
      'plan/index.ts',
      'pipeline.ts',
    ]);
  });

  it('three definitions deep, the walk stays in the stages and the phases and climbs back at most 6 times', () => {
    // Issue 36: "climbs back up at most 6 times". Four climbs are the returns to the pipeline from
    // its three stages and the planner; the fifth, the manifest stage's error class.
    const m = measureWalk(readingWalk(join(SRC, 'pipeline.ts'), 'planFromManifests', 3));
    expect(m.climbs).toBeLessThanOrEqual(6);
    const outside = [...new Set(m.stays.map(rel))].filter(
      (f) =>
        !/^(pipeline\.ts|manifest\/index\.ts|live\/read-live-state\.ts|plan\/(index|renames)\.ts|plan\/phases\/)/.test(
          f,
        ),
    );
    expect(outside).toEqual(['model/errors.ts']);
  });

  it('plan() is the list of its phases: every name it reads is a phase', () => {
    const m = measureWalk(readingWalk(join(SRC, 'plan', 'index.ts'), 'plan', 2));
    const outside = [...new Set(m.stays.map(rel))].filter(
      (f) => f !== 'plan/index.ts' && !f.startsWith('plan/phases/'),
    );
    expect(outside).toEqual([]);
    // Each phase is entered once, in order, and the walk comes back to the list between phases.
    expect(m.stays.filter((f) => rel(f) === 'plan/index.ts').length).toBe(m.stays.length - (m.stays.length - 1) / 2);
  });

  it('walked phase by phase, plan() is at most 30 stays and climbs back at most 6 times; from planFromManifests, 3 deep, at most 16 files (issue 52)', () => {
    const phases = measureWalk(readingWalk(join(SRC, 'plan', 'index.ts'), 'plan', 2));
    expect(phases.stays.length).toBeLessThanOrEqual(30);
    expect(phases.climbs).toBeLessThanOrEqual(6);
    const data = measureWalk(readingWalk(join(SRC, 'pipeline.ts'), 'planFromManifests', 3));
    expect(data.files).toBeLessThanOrEqual(16);
    expect(data.climbs).toBeLessThanOrEqual(6);
  });

  it('phases return what they make: the inputs they share hold no ledger of steps, warnings or refusals (issue 52)', async () => {
    const { sourceModules, walkAst } = await import('../support/source-graph.js');
    const planning = sourceModules().find((m) => m.rel === 'plan/phases/planning.ts')!;
    const inputs = [...walkAst(planning.tree)].find(
      (n) => n.type === 'TSInterfaceDeclaration' && (n.id as { name: string }).name === 'PlanInputs',
    )!;
    const fields = [...walkAst(inputs)]
      .filter((n) => n.type === 'TSPropertySignature')
      .map((n) => String((n.key as { name: string }).name));
    expect(fields.length).toBeGreaterThan(5);
    expect(fields.filter((f) => ['steps', 'warnings', 'refusals', 'creating', 'notes'].includes(f))).toEqual([]);
    // plan() hands each phase what it reads and puts together what they return: no phase is called without its result kept.
    const index = sourceModules().find((m) => m.rel === 'plan/index.ts')!;
    const plan = [...walkAst(index.tree)].find(
      (n) => n.type === 'FunctionDeclaration' && (n.id as { name: string }).name === 'plan',
    )!;
    const bare = [...walkAst(plan)]
      .filter((n) => n.type === 'ExpressionStatement' && (n.expression as { type: string }).type === 'CallExpression')
      .map((n) => String((n.expression as { callee: { name?: string } }).callee.name));
    expect(bare).toEqual(['checkTargets']);
  });
});
