package dev.berth.core.testing.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.Source;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where the source file of a class ArchUnit imported is. ArchUnit knows the class file's location
 * and the source file's name (from the class file's debug information), not the source's path; the
 * Maven layout gives it: a class compiled to {@code <module>/target/classes/<package>/} was written
 * in {@code <module>/src/main/java/<package>/} (and one in {@code target/test-classes} in {@code
 * src/test/java}), or generated into {@code <module>/target/generated-sources/<tool>/<package>/}.
 */
public sealed interface ClassSource {

  /** A source file someone wrote. */
  record Written(Path file) implements ClassSource {}

  /** A source file a tool generated: not held to the rules of written code. */
  record Generated(Path file) implements ClassSource {}

  /** No source file was found, for {@code reason}. */
  record Missing(String reason) implements ClassSource {}

  /** Finds the source file of {@code javaClass}. */
  static ClassSource of(JavaClass javaClass) {
    Optional<Source> source = javaClass.getSource();
    Optional<String> fileName = source.flatMap(Source::getFileName);
    if (source.isEmpty() || fileName.isEmpty()) {
      return new Missing(
          "its class file names no source file (compiled without debug information?)");
    }
    URI uri = source.get().getUri();
    if (!"file".equals(uri.getScheme())) {
      return new Missing("it was imported from " + uri + ", not from a module's target/");
    }
    String packagePath = javaClass.getPackageName().replace('.', '/');
    Path classFile = Path.of(uri);
    int depth = packagePath.isEmpty() ? 0 : packagePath.split("/").length;
    // <module>/target/classes/<package>/<Name>.class: the module, target/ and classes/ above.
    if (classFile.getRoot() == null || classFile.getNameCount() < depth + 4) {
      return new Missing("its class file " + uri + " is not in a module's target/");
    }
    Path classesRoot =
        classFile.getRoot().resolve(classFile.subpath(0, classFile.getNameCount() - 1 - depth));
    Path target = classesRoot.getParent();
    String sourceSet = classesRoot.endsWith("test-classes") ? "test" : "main";
    Path written =
        target.resolveSibling(Path.of("src", sourceSet, "java", packagePath, fileName.get()));
    if (Files.isRegularFile(written)) {
      return new Written(written);
    }
    return generated(target, packagePath, fileName.get())
        .<ClassSource>map(Generated::new)
        .orElseGet(() -> new Missing(written + " does not exist, nor a generated source"));
  }

  private static Optional<Path> generated(Path target, String packagePath, String fileName) {
    Path tools = target.resolve("generated-sources");
    if (!Files.isDirectory(tools)) {
      return Optional.empty();
    }
    try (Stream<Path> each = Files.list(tools)) {
      return each.map(tool -> tool.resolve(packagePath).resolve(fileName))
          .filter(Files::isRegularFile)
          .findFirst();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + tools, e);
    }
  }
}
