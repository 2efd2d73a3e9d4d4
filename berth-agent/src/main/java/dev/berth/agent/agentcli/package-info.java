/**
 * Coding-agent CLIs as session workloads: one declarative adapter per CLI ({@link
 * dev.berth.agent.agentcli.AgentAdapter}: its argv, environment, state paths, stream projector and
 * resume rule), and what turns a CLI's machine output into the session's two outputs.
 *
 * <p><b>The byte log</b> holds the projection a reader follows with the same cursor contract as a
 * shell's output: the assistant's text as it streams, a newline where a message ends, the CLI's
 * diagnostics, always valid UTF-8 ({@link dev.berth.agent.agentcli.Utf8Text}) and with every secret
 * redacted, also when it arrives split across writes ({@link
 * dev.berth.agent.agentcli.StreamRedactor}).
 *
 * <p><b>The transcript</b> beside it is structured: one schema ({@link
 * dev.berth.agent.agentcli.TranscriptEvent}) for every CLI, so that a client renders turns, tool
 * calls and usage without knowing which CLI ran. Events a projector does not know are kept as
 * {@code raw} rather than dropped.
 */
@NullMarked
package dev.berth.agent.agentcli;

import org.jspecify.annotations.NullMarked;
