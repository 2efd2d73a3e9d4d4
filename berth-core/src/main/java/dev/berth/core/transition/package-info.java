/** The declarative transition table every Berth state machine is written in. */
@NullMarked
package dev.berth.core.transition;

import org.jspecify.annotations.NullMarked;
