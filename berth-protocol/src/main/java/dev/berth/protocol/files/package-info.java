/**
 * The platform's own files are private to the user Berth runs as (issue 11): directories 0700,
 * files 0600, both created that way rather than opened up by the umask and narrowed afterwards, so
 * that no token, database page or output byte is ever readable by another user, not even for a
 * moment. {@link dev.berth.protocol.files.PrivateFiles} creates them; {@link
 * dev.berth.protocol.files.PrivacyRule} is the check a server or node runs at start, which refuses
 * a data directory or secret that others may reach instead of repairing it (as ssh does with
 * private keys), because such a file may already have been read.
 *
 * <p>What this package does not cover: the contents of a runtime's {@code home/}, {@code tmp/} and
 * {@code shell-state/}, which belong to the sandboxed workload and keep the modes it gives them.
 */
@NullMarked
package dev.berth.protocol.files;

import org.jspecify.annotations.NullMarked;
