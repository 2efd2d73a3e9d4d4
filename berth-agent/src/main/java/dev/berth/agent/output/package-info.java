/**
 * The output of a workload: an append-only, file-backed log with byte-offset cursors, and the
 * followers that turn it into live streams.
 *
 * <p><b>Why segments.</b> {@link dev.berth.agent.output.OutputLog} keeps its bytes in files named
 * by their first offset, so that the output survives a host restart (a reopened log continues at
 * its end), can be archived file by file, and can be capped without copying: dropping the head is
 * deleting the oldest files. Nothing is held in memory but the list of segments.
 *
 * <p><b>Cursor semantics.</b> A cursor is an absolute byte offset from the first byte the workload
 * ever wrote; it never shifts, not when the head is dropped and not across restarts. Reads are
 * non-consuming. A cursor inside the log reads from there; a cursor that fell off the head reads
 * from the head and says so ({@link dev.berth.agent.output.OutputSlice#behind()}); a cursor past
 * the end reads nothing and tells the current length ({@link
 * dev.berth.agent.output.OutputSlice#reset()}). A live stream answers both of the latter with a
 * reset to the current end, as the original platform did.
 *
 * <p><b>Text over bytes.</b> Output is bytes, usually UTF-8. {@link
 * dev.berth.agent.output.Utf8Boundary} and {@link dev.berth.agent.output.OutputFollower} end stream
 * chunks on character boundaries where one exists and hold an incomplete trailing character only
 * briefly and only while it is valid, so invalid output can never stall a stream. {@link
 * dev.berth.agent.output.SseOutputWriter} writes the SSE wire format on top.
 *
 * <p><b>Back-pressure.</b> The writer (the PTY pump) never waits for a reader: readers take no lock
 * the writer needs, and a reader that stops reading only falls behind the head.
 */
@NullMarked
package dev.berth.agent.output;

import org.jspecify.annotations.NullMarked;
