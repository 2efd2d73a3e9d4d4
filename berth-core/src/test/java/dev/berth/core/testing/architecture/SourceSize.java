package dev.berth.core.testing.architecture;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ParserConfiguration.LanguageLevel;
import com.github.javaparser.Range;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CompactConstructorDeclaration;
import com.github.javaparser.ast.body.ConstructorDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * How long one source file is, and each method and constructor in it (those of nested, local and
 * anonymous classes too).
 *
 * <p>Why the source and not the class file: ArchUnit knows only a method's first line, and a class
 * file's line numbers cover the statements of a method alone; a lambda's body and an anonymous
 * class's methods are compiled into methods of their own, so a long method made of lambdas would
 * look short. JavaParser reads the source as written: a method is measured from its first line (its
 * annotations, not its javadoc) to its closing brace, blank lines and comments included, which is
 * what a reader has to read.
 *
 * @param file the source file
 * @param lines its lines, as {@code wc -l} counts them
 * @param methods its methods and constructors, the longest first (in the file's order among equals)
 */
public record SourceSize(Path file, int lines, List<MethodSize> methods) {

  /**
   * One method or constructor.
   *
   * @param name its enclosing types and signature, e.g. {@code Outer.Inner.run(String, int)}
   * @param line the line its declaration starts on
   * @param lines from that line to its closing brace
   */
  public record MethodSize(String name, int line, int lines) {}

  // The language level of the build's release (maven.compiler.release); raise them together.
  private static final LanguageLevel LEVEL = LanguageLevel.JAVA_21;

  /**
   * Measures {@code file}.
   *
   * @throws IllegalArgumentException when JavaParser cannot parse it
   * @throws UncheckedIOException when it cannot be read
   */
  public static SourceSize of(Path file) {
    List<String> text;
    try {
      text = Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    ParseResult<CompilationUnit> parsed =
        new JavaParser(new ParserConfiguration().setLanguageLevel(LEVEL))
            .parse(String.join("\n", text));
    CompilationUnit unit =
        parsed
            .getResult()
            .filter(result -> parsed.isSuccessful())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "JavaParser cannot parse " + file + ": " + parsed.getProblems()));
    List<MethodSize> methods = new ArrayList<>();
    unit.findAll(MethodDeclaration.class)
        .forEach(m -> measure(m, m.getSignature().asString()).ifPresent(methods::add));
    unit.findAll(ConstructorDeclaration.class)
        .forEach(c -> measure(c, c.getSignature().asString()).ifPresent(methods::add));
    unit.findAll(CompactConstructorDeclaration.class)
        .forEach(c -> measure(c, c.getNameAsString()).ifPresent(methods::add));
    methods.sort(
        Comparator.comparingInt(MethodSize::lines).reversed().thenComparingInt(MethodSize::line));
    return new SourceSize(file, text.size(), List.copyOf(methods));
  }

  /** The methods over {@code maxLines}, the longest first. */
  public List<MethodSize> methodsOver(int maxLines) {
    return methods.stream().filter(method -> method.lines() > maxLines).toList();
  }

  private static Optional<MethodSize> measure(Node declaration, String signature) {
    return declaration
        .getRange()
        .map(
            (Range range) ->
                new MethodSize(
                    owners(declaration) + signature,
                    range.begin.line,
                    range.end.line - range.begin.line + 1));
  }

  /** {@code Outer.Inner.} for a method of {@code Inner}; an anonymous class adds nothing. */
  private static String owners(Node declaration) {
    StringBuilder owners = new StringBuilder();
    Optional<Node> parent = declaration.getParentNode();
    while (parent.isPresent()) {
      if (parent.get() instanceof TypeDeclaration<?> type) {
        owners.insert(0, type.getNameAsString() + ".");
      }
      parent = parent.get().getParentNode();
    }
    return owners.toString();
  }
}
