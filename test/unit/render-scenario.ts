/** One realistic plan for the renderer tests, made by the real planner from builders. */
import type { Plan } from '../../src/model/plan.js';
import { plan } from '../../src/plan/index.js';
import { desiredState, liveState, r } from './plan-builders.js';

export function scenarioPlan(): Plan {
  const live = liveState([
    r.group('eng', { description: 'Engineering' }),
    r.identity('eng', 'ci', { description: 'old bot', claimMatch: { issuer: 'https://iss', subject: 'a' } }),
    r.role('', 'deployer', { capabilities: ['repo.list'] }),
    r.binding('eng', 'ci', 'viewer'),
    r.repo('', 'nginx', { description: 'Hardened nginx', readme: '# nginx\n\nOld text.\n' }),
    r.repo('', 'legacy'),
    r.tag('', 'legacy', '1.0'),
  ]);
  const desired = desiredState([
    r.group('eng', { description: 'Engineering' }),
    r.group('eng/platform', { description: 'Platform team' }),
    r.identity('eng', 'ci', { description: 'CI bot', claimMatch: { issuer: 'https://iss', subject: 'a' } }),
    r.identity('eng/platform', 'deploy-bot'),
    r.role('', 'deployer', { capabilities: ['repo.list'] }),
    r.binding('eng', 'ci', '/deployer'),
    r.binding('eng/platform', 'deploy-bot', '/deployer'),
    r.repo('', 'nginx', { description: 'Hardened nginx', readme: '# nginx\n\nNew text.\nMore.\n' }),
  ]);
  return plan(desired, live);
}
