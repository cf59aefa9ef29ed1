/**
 * yaml's problems as diagnostics that say what was expected and where the mistake is: an
 * indentation mistake at the misindented line (not the key above), an unclosed quote where it
 * opens, an unknown tag, nesting past MAX_NESTING_DEPTH.
 */
import type { YAMLError } from 'yaml';
import type { Diagnostic } from '../model/errors.js';
import type { SourceLocation } from '../model/resources.js';

/**
 * Mappings and lists one inside another that a document may hold. A group nested in another
 * takes two levels (its parent's `groups` list and its own mapping), so this allows groups some
 * 45 deep; a deeper document is an error, not a stack overflow in the checks that walk it.
 */
export const MAX_NESTING_DEPTH = 100;
export const TOO_DEEP = `nested too deeply: more than ${MAX_NESTING_DEPTH} mappings and lists one inside another (a group inside another takes two); expected a shallower tree of groups`;

/** Rewrites yaml's problem codes as messages that say what was expected. */
export function describeYamlProblem(
  problem: YAMLError,
  text: string,
  at: (offset: number) => SourceLocation,
): Diagnostic {
  const location = at(problem.pos[0]);
  switch (problem.code) {
    case 'TAB_AS_INDENT':
      return { location, path: '', message: 'tab character in indentation; YAML indentation must use spaces only' };
    case 'MULTILINE_IMPLICIT_KEY': {
      const line = text.split(/\r?\n/)[location.line - 1] ?? '';
      if (!line.includes(':')) {
        return {
          location,
          path: '',
          message:
            'YAML syntax error: expected "key: value", but this line has no ":" (a key needs ": " before its value)',
        };
      }
      return describeIndentation(problem, text, at) ?? describeYamlSyntax(problem, location);
    }
    case 'BAD_INDENT':
    case 'BLOCK_AS_IMPLICIT_KEY':
      return describeIndentation(problem, text, at) ?? describeYamlSyntax(problem, location);
    case 'MISSING_CHAR': {
      if (/without - indicator/.test(problem.message))
        return describeIndentation(problem, text, at) ?? describeYamlSyntax(problem, location);
      // yaml reports an unclosed quote where the file ends; the mistake is where the string opens.
      const quote = /Missing closing (["'])quote/.exec(problem.message)?.[1];
      const opening = quote === undefined ? -1 : text.lastIndexOf(quote, problem.pos[0] - 1);
      if (opening >= 0) {
        return {
          location: at(opening),
          path: '',
          message: `YAML syntax error: the quoted string that starts here has no closing ${quote}; close it on the line where it ends`,
        };
      }
      return describeYamlSyntax(problem, location);
    }
    case 'TAG_RESOLVE_FAILED':
      return {
        location,
        path: '',
        message: `unknown YAML tag ${JSON.stringify(text.slice(problem.pos[0], problem.pos[1]))}; manifests use plain strings, numbers, booleans, lists and mappings`,
      };
    default:
      return describeYamlSyntax(problem, location);
  }
}

/**
 * One indentation mistake trips several of yaml's checks at one place ("implicit keys…",
 * "nested mappings…"): where a message names the indentation, it is the only one kept for that
 * place. Other messages at one place (an unclosed "{" and an unclosed "[") all stay.
 */
export function keepOnePerLocation(diagnostics: Diagnostic[]): Diagnostic[] {
  const place = (d: Diagnostic) => `${d.location.line}:${d.location.column}`;
  const indentation = new Map<string, Diagnostic>();
  for (const d of diagnostics)
    if (d.message.startsWith(BAD_INDENTATION) && !indentation.has(place(d))) indentation.set(place(d), d);
  return diagnostics.filter((d) => (indentation.get(place(d)) ?? d) === d);
}

const BAD_INDENTATION = 'bad indentation:';

/** yaml's own sentence: with prettyErrors off, it is one plain sentence that says what was expected. */
function yamlSentence(problem: YAMLError): string {
  return problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function describeYamlSyntax(problem: YAMLError, location: SourceLocation): Diagnostic {
  // Nesting so deep that the parser itself ran out of stack (`[[[[…` thousands of times).
  if (problem.message.includes('Maximum call stack size exceeded')) return { location, path: '', message: TOO_DEEP };
  return { location, path: '', message: `YAML syntax error: ${yamlSentence(problem)}` };
}

/**
 * A line indented more or less than the key above it derails yaml into messages about implicit
 * keys and missing "-" indicators, reported at the key above or at column 1. Points instead at
 * the first character of the misindented line and says which column the key above starts at;
 * undefined when the lines do not show an indentation mistake.
 */
function describeIndentation(
  problem: YAMLError,
  text: string,
  at: (offset: number) => SourceLocation,
): Diagnostic | undefined {
  const lines = text.split(/\r?\n/);
  const reported = at(problem.pos[0]);
  const isContent = (i: number) => lines[i] !== undefined && !/^\s*(#.*)?$/.test(lines[i]!);
  const indentOf = (i: number) => lines[i]!.search(/\S/) + 1;
  // Reported inside a line (at the value after "key: "), the mistake is on the next line: it is
  // indented so that yaml reads it as a continuation of that value. Else it is the line itself.
  let line = reported.line - 1;
  if (reported.column > indentOf(line)) line++;
  while (line < lines.length && !isContent(line)) line++;
  let above = line - 1;
  while (above >= 0 && !isContent(above)) above--;
  if (!isContent(line) || above < 0) return undefined;

  const column = indentOf(line);
  const location = { file: reported.file, line: line + 1, column };
  const yaml = ` (YAML: ${yamlSentence(problem)})`;
  const itemAbove = /^[ ]*-[ ]/.test(lines[above]!);
  if (lines[line]!.trimStart().startsWith('- ') && itemAbove && column !== indentOf(above)) {
    return {
      location,
      path: '',
      message: `${BAD_INDENTATION} this list item starts at column ${column}, but the item above it starts at column ${indentOf(above)}; items of one list must start at the same column${yaml}`,
    };
  }
  // The key of the line above starts after its indentation and any "- " item markers.
  const keyAbove = /^[ ]*(?:-[ ]+)*/.exec(lines[above]!)![0].length + 1;
  const opensBlock = /:[ ]*(#.*)?$/.test(lines[above]!);
  if (column === keyAbove || (column > keyAbove && opensBlock)) return undefined;
  if (column > keyAbove) {
    return {
      location,
      path: '',
      message: `${BAD_INDENTATION} this line starts at column ${column}, deeper than the key above it (column ${keyAbove}), so it cannot start a new key there; align it with the key above, or write the key above with nothing after its ":" to nest under it${yaml}`,
    };
  }
  return {
    location,
    path: '',
    message: `${BAD_INDENTATION} this line starts at column ${column}, but the key above it starts at column ${keyAbove}; keys of one mapping must start at the same column, and a new list item starts with "- "${yaml}`,
  };
}
