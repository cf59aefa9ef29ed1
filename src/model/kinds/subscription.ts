/** Event subscriptions: a group's events delivered to an https sink; keyed by the sink. */
import { joinPath } from '../address.js';
import { declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared } from './declared-types.js';
import { isHttpsUrl, nonAsciiUrlProblem } from '../../util/url.js';

/** A subscription's fields, as declared. */
export type SubscriptionFields = Declared<'subscription'>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.subscription);

export const subscription = defineKind({
  kind: 'subscription',
  label: { one: 'subscription', many: 'subscriptions' },
  api: {
    collection: '/events/v2/subscriptions',
    plural: 'subscriptions',
  },
  keyField: 'sink',
  fields: FIELDS,
  manifest: { listKey: 'subscriptions', definition: 'subscription', form: 'item', itemNoun: 'subscription' },
  // `subscription:<group path>/<sink>` (no leading '/' at the root).
  address: (groupPath, fields) => `subscription:${joinPath(groupPath, String(fields.sink))}`,
  describe: (key) => `subscription to ${key}`,
  checkItem(item, key, where) {
    const ascii = nonAsciiUrlProblem(`sink of a subscription in ${where}`, key);
    if (ascii) return [{ pointer: ['sink'], message: ascii, fatal: true }];
    // The schema checks the https:// prefix; here the rest of the URL must parse too.
    if (!key.startsWith('https://') || isHttpsUrl(key)) return [];
    return [
      {
        pointer: ['sink'],
        message: `sink ${JSON.stringify(key)} of a subscription in ${where} is not a valid URL; expected https://<host>/<path>`,
        fatal: true,
      },
    ];
  },
});
