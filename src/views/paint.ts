/**
 * The one colour mechanism of every view: `node:util` styleText behind a Paint function. The
 * caller decides whether to colour (a terminal, no NO_COLOR, no --no-color) and hands the view
 * a painter; a view never looks at a stream itself.
 */
import { styleText } from 'node:util';

export type Style = 'green' | 'red' | 'yellow' | 'magenta' | 'dim' | 'bold';

/** Colours a piece of text, or leaves it alone. */
export type Paint = (style: Style, text: string) => string;

export const plainPaint: Paint = (_style, text) => text;
// The caller decided to colour, so styleText must not second-guess the stream.
export const colorPaint: Paint = (style, text) => styleText(style, text, { validateStream: false });

export function paintFor(color: boolean | undefined): Paint {
  return color ? colorPaint : plainPaint;
}
