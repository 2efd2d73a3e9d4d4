/**
 * Terminal output made safe to replay: the sequences that ask the terminal for an answer
 * neutralised.
 */
@NullMarked
package dev.berth.core.terminal;

import org.jspecify.annotations.NullMarked;
