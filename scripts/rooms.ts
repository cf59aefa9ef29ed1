/**
 * `npm run rooms`: the house the folders of src/ make (issue 52). Each folder is a room (src/
 * itself is one, for the files at its top); a room stands on the rooms it imports from, every
 * import counted — types too, since a reader follows them as well. Rooms are stacked on floors
 * (a room's floor is one above the highest room it stands on); where imports go round in a
 * circle, the fewest imports that run back up are set aside first, and they are what the
 * report counts: the imports that run back up, and the circles (two or more rooms that import
 * each other, directly or through others).
 *
 * Usage: npm run rooms -- [--imports]   (--imports: list every import that runs back up)
 */
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveModule, sourceModules, SRC, walkAst, type AstNode } from './source-graph.js';

/** One import of one file, run-time or type-only, resolved to a module of src/. */
export interface Import {
  from: string;
  to: string;
}

/** Every relative import (and re-export) of every module of src/, types included. */
export function everyImport(): Import[] {
  const out: Import[] = [];
  // The trees sourceModules parsed once for the process (the architecture tests read them too).
  for (const { file, tree } of sourceModules()) {
    for (const node of walkAst(tree)) {
      const isImport =
        node.type === 'ImportDeclaration' ||
        ((node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') && node.source) ||
        node.type === 'ImportExpression' ||
        node.type === 'TSImportType';
      if (!isImport) continue;
      const source = (node.source as AstNode | undefined)?.value;
      const to = typeof source === 'string' ? resolveModule(file, source) : undefined;
      if (to)
        out.push({ from: relative(SRC, file).split('\\').join('/'), to: relative(SRC, to).split('\\').join('/') });
    }
  }
  return out;
}

/** A file's room: its folder under src/ (a folder inside it is part of the room); a file at the top of src/ is a room of its own. */
export const roomOf = (rel: string): string => rel.split('/')[0]!;

export interface House {
  rooms: string[];
  /** Room → its floor (0 = the ground: imports from no other room). */
  floors: Map<string, number>;
  /** The imports that run back up: from a room to one on its own floor or above. */
  backUp: Import[];
  /** Circles: groups of two or more rooms that import each other. */
  circles: string[][];
}

/** Stacks the rooms: circles broken where the fewest imports run back, then floors by longest path. */
export function stackRooms(imports: readonly Import[]): House {
  const weight = new Map<string, Map<string, number>>();
  const rooms = new Set<string>();
  for (const i of imports) {
    const a = roomOf(i.from);
    const b = roomOf(i.to);
    rooms.add(a).add(b);
    if (a === b) continue;
    const row = weight.get(a) ?? new Map<string, number>();
    row.set(b, (row.get(b) ?? 0) + 1);
    weight.set(a, row);
  }
  const all = [...rooms].sort();
  const circles = stronglyConnected(all, (r) => [...(weight.get(r)?.keys() ?? [])]).filter((c) => c.length > 1);
  // Inside each circle: the order of its rooms (lowest first) whose imports from a lower to a higher room are fewest.
  const cut = new Set<string>();
  for (const circle of circles) {
    const order = bestOrder(circle, (a, b) => weight.get(a)?.get(b) ?? 0);
    const place = new Map(order.map((r, i) => [r, i]));
    for (const a of circle)
      for (const b of circle)
        if (a !== b && (weight.get(a)?.get(b) ?? 0) > 0 && place.get(b)! > place.get(a)!) cut.add(`${a}\u0000${b}`);
  }
  const floors = new Map<string, number>();
  const floorOf = (r: string, seen: Set<string>): number => {
    const known = floors.get(r);
    if (known !== undefined) return known;
    seen.add(r);
    let floor = 0;
    for (const b of weight.get(r)?.keys() ?? [])
      if (!cut.has(`${r}\u0000${b}`) && !seen.has(b)) floor = Math.max(floor, floorOf(b, seen) + 1);
    seen.delete(r);
    floors.set(r, floor);
    return floor;
  };
  for (const r of all) floorOf(r, new Set());
  const backUp = imports.filter(
    (i) => roomOf(i.from) !== roomOf(i.to) && floors.get(roomOf(i.to))! >= floors.get(roomOf(i.from))!,
  );
  return { rooms: all, floors, backUp, circles };
}

/** Tarjan's strongly connected components. */
function stronglyConnected(nodes: readonly string[], next: (n: string) => string[]): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        on.delete(w);
        component.push(w);
        if (w === v) break;
      }
      out.push(component.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) visit(n);
  return out;
}

/**
 * The order of a circle's rooms (lowest first) with few imports upward: every order when small,
 * else Eades, Lin and Smyth's heuristic (rooms that import nothing left go to the bottom, rooms
 * nothing left imports to the top, else the room that imports least and is imported most).
 */
function bestOrder(circle: readonly string[], w: (a: string, b: string) => number): string[] {
  const cost = (order: readonly string[]) => {
    let c = 0;
    for (let i = 0; i < order.length; i++) for (let j = i + 1; j < order.length; j++) c += w(order[i]!, order[j]!);
    return c;
  };
  if (circle.length <= 7) {
    let best: string[] = [...circle];
    let bestCost = cost(best);
    const permute = (prefix: string[], rest: string[]): void => {
      if (rest.length === 0) {
        const c = cost(prefix);
        if (c < bestCost) [best, bestCost] = [[...prefix], c];
        return;
      }
      for (let i = 0; i < rest.length; i++) permute([...prefix, rest[i]!], [...rest.slice(0, i), ...rest.slice(i + 1)]);
    };
    permute([], [...circle]);
    return best;
  }
  const left = new Set(circle);
  const out = (r: string) => [...left].reduce((c, o) => c + (o === r ? 0 : w(r, o)), 0);
  const into = (r: string) => [...left].reduce((c, o) => c + (o === r ? 0 : w(o, r)), 0);
  const bottom: string[] = [];
  const top: string[] = [];
  while (left.size > 0) {
    let moved = true;
    while (moved) {
      moved = false;
      for (const r of [...left].sort()) {
        if (out(r) === 0) {
          bottom.push(r);
          left.delete(r);
          moved = true;
        } else if (into(r) === 0) {
          top.unshift(r);
          left.delete(r);
          moved = true;
        }
      }
    }
    if (left.size === 0) break;
    // The room most imported and least importing goes as low as it can.
    const pick = [...left].sort().reduce((a, b) => (into(b) - out(b) > into(a) - out(a) ? b : a));
    bottom.push(pick);
    left.delete(pick);
  }
  return [...bottom, ...top];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const house = stackRooms(everyImport());
  const top = Math.max(...house.floors.values());
  for (let f = top; f >= 0; f--)
    console.log(`floor ${String(f).padStart(2)}: ${house.rooms.filter((r) => house.floors.get(r) === f).join(', ')}`);
  console.log(
    `${house.rooms.length} rooms on ${top + 1} floors; ${house.backUp.length} imports run back up; ${house.circles.length} circles${house.circles.length ? `: ${house.circles.map((c) => c.join(' ⇄ ')).join('; ')}` : ''}`,
  );
  if (process.argv.includes('--imports')) for (const i of house.backUp) console.log(`  ↑ ${i.from} → ${i.to}`);
}
