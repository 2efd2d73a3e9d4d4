/**
 * The Berth agent: the process that runs next to a workload, executes the sessions the server
 * assigns to it and reports their state back. This module is a placeholder; it depends only on
 * {@code berth-core} and holds no code yet.
 */
package dev.berth.agent;
