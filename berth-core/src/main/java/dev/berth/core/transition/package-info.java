/** The declarative transition table every Berth state machine is written in. */
package dev.berth.core.transition;
