package dev.berth.server;

import dev.berth.protocol.files.PrivacyRule;
import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The key the local installation's approval gateway keys are derived from ({@link
 * dev.berth.core.approval.GatewayKeys}): 32 random bytes, minted at the first start and kept in
 * {@code <data-dir>/approval-gateway.key} (base64, mode 0600), so the keys of running sessions'
 * proxies stay valid across a restart. The Kubernetes runtime derives them from its token key
 * instead, which every replica shares.
 */
final class GatewayKeyFile {

  static final String FILE = "approval-gateway.key";

  private GatewayKeyFile() {}

  static byte[] loadOrCreate(Path dataDir) {
    Path file = dataDir.resolve(FILE);
    try {
      if (!Files.exists(file)) {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        byte[] text = Base64.getEncoder().encode(key);
        try (FileChannel channel =
            PrivateFiles.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          ByteBuffer bytes = ByteBuffer.wrap(text);
          while (bytes.hasRemaining()) {
            channel.write(bytes);
          }
        } catch (FileAlreadyExistsException raced) {
          // another start wrote it first; use that one
        }
      }
      PrivacyRule.requirePrivate(file, "the approval gateway key");
      return Base64.getDecoder().decode(Files.readString(file, StandardCharsets.UTF_8).strip());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create " + file, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          file + " is not base64; delete it to have a new key minted at the next start", e);
    }
  }
}
