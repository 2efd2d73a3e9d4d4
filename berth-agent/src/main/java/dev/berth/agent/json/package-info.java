/** The agent's JSON conventions, shared by its HTTP API and its state files. */
package dev.berth.agent.json;
