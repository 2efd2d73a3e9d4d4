/**
 * The archive store on a local filesystem: one directory per session, one file per archive
 * generation, committed by an atomic rename. See {@link
 * dev.berth.server.archive.filesystem.FilesystemArchiveStore}.
 */
@NullMarked
package dev.berth.server.archive.filesystem;

import org.jspecify.annotations.NullMarked;
