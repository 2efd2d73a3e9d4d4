/**
 * The archive store on a local filesystem: one directory per session, one file per archive
 * generation, committed by an atomic rename. See {@link
 * dev.berth.server.archive.filesystem.FilesystemArchiveStore}.
 */
package dev.berth.server.archive.filesystem;
