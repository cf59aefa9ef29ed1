/** `open-invite` (medium; high for a write role): a live invite without an e-mail, which anyone holding its code can accept. */
import { referenceText } from '../../model/address.js';
import type { AuditRule, Finding } from '../types.js';

export const rule: AuditRule = {
  id: 'open-invite',
  title: 'An invite carries no e-mail: whoever holds its code may accept it',
  help: 'Invite people as members (members: [{email, role}]): their invites carry the e-mail, and only that person can accept one. Delete open invites nobody still needs.',
  severity: 'high',
  check(facts) {
    return facts.invites.flatMap((i): Finding[] => {
      if (i.email !== undefined) return [];
      const write = facts.isWriteRole(i.role);
      const role = referenceText('', i.role);
      return [
        {
          rule: this.id,
          severity: write ? 'high' : 'medium',
          address: i.address,
          message: `the invite to role ${role} carries no e-mail: anyone holding its code can accept it${write ? ', and the role can write' : ''}`,
        },
      ];
    });
  },
};
