// What a terminal emulator sends as input by itself, as opposed to what the user types.

/**
 * What a terminal sends by itself rather than the user: reports (cursor position, device attributes,
 * modes, colours), and the focus and mouse events a replayed program turned on for a while.
 */
export function isTerminalAnswer(data: string): boolean {
  // eslint-disable-next-line no-control-regex -- every terminal answer starts with ESC
  return /^\x1b(\[[?>=]?[\d;]*(R|c|n|\$y|t)|\][\d;]+;(rgb:|\?)|P[\d]*[$+]r|\[[IO]$|\[<[\d;]+[Mm]|\[M)/.test(data);
}
