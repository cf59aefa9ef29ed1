/**
 * The answers of a pure function of a string, kept so that a value repeated thousands of times
 * in manifests (an issuer, a pattern) is worked out once — and bounded, since the strings come
 * from a stranger's manifest: when `max` answers are kept, the memo starts over.
 */
export function boundedMemo<V>(max: number, compute: (key: string) => V): (key: string) => V {
  const answers = new Map<string, V>();
  return (key) => {
    if (answers.has(key)) return answers.get(key) as V;
    const answer = compute(key);
    if (answers.size >= max) answers.clear();
    answers.set(key, answer);
    return answer;
  };
}
