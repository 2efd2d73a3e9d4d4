package dev.berth.protocol.node;

/**
 * The files a node keeps in its state directory that the control plane reads too: both sides name
 * them from here, so that a control plane and a node of the same release always agree on where the
 * node's address, token, lock and log are.
 */
public final class NodeFiles {

  /** Held by the running node; a second node on the same directory refuses to start. */
  public static final String LOCK = "node.lock";

  /** The node's own output; the control plane opens it for a node it starts. */
  public static final String LOG = "node.log";

  /** What the state directory is called in messages. */
  public static final String STATE_DIRECTORY = "node state directory";

  private NodeFiles() {}
}
