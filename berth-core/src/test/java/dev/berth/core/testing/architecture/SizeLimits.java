package dev.berth.core.testing.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * An ArchUnit condition on top-level classes: the source file of each is at most {@code
 * maxClassLines} long, and none of its methods and constructors (those of its nested classes
 * included) over {@code maxMethodLines}. Generated sources are not held to it; a class whose source
 * cannot be found or read fails it, so that a rule that measures nothing cannot pass.
 *
 * <p>Once every class is checked, it prints the largest ones to a stream (the test's standard
 * output, so that the build's log shows how close the largest are to the limit), when asked with
 * {@link #printingTheLargest}.
 *
 * <p>Use: {@code classes().that().areTopLevelClasses().should(SizeLimits.of(450, 60))}, in a module
 * that has berth-core's test-jar, ArchUnit and javaparser-core as test dependencies (a test-jar
 * brings none of its own).
 */
public final class SizeLimits extends ArchCondition<JavaClass> {
  private static final String WAY_OUT = "split it by responsibility";

  private final int maxClassLines;
  private final int maxMethodLines;
  private final int largestToPrint;
  private final PrintStream out;
  private final List<Measured> measured = new ArrayList<>();

  private record Measured(JavaClass javaClass, SourceSize size) {}

  private SizeLimits(int maxClassLines, int maxMethodLines, int largestToPrint, PrintStream out) {
    super(
        "have at most %d lines of source, and no method or constructor over %d",
        maxClassLines, maxMethodLines);
    this.maxClassLines = maxClassLines;
    this.maxMethodLines = maxMethodLines;
    this.largestToPrint = largestToPrint;
    this.out = out;
  }

  /** Classes of at most {@code maxClassLines}, methods of at most {@code maxMethodLines}. */
  public static SizeLimits of(int maxClassLines, int maxMethodLines) {
    return new SizeLimits(maxClassLines, maxMethodLines, 0, System.out);
  }

  /** The same limits, printing the {@code count} largest classes and methods to {@code out}. */
  public SizeLimits printingTheLargest(int count, PrintStream out) {
    return new SizeLimits(maxClassLines, maxMethodLines, count, out);
  }

  @Override
  public void init(Collection<JavaClass> allObjectsToTest) {
    measured.clear();
  }

  @Override
  public void check(JavaClass javaClass, ConditionEvents events) {
    switch (ClassSource.of(javaClass)) {
      case ClassSource.Written written -> check(javaClass, written, events);
      case ClassSource.Generated generated ->
          events.add(
              SimpleConditionEvent.satisfied(
                  javaClass, javaClass.getName() + " is generated (" + generated.file() + ")"));
      case ClassSource.Missing missing ->
          events.add(
              SimpleConditionEvent.violated(
                  javaClass, "cannot measure " + javaClass.getName() + ": " + missing.reason()));
    }
  }

  private void check(JavaClass javaClass, ClassSource.Written written, ConditionEvents events) {
    if (!written.file().getFileName().toString().equals(javaClass.getSimpleName() + ".java")) {
      // A second top-level class of a file: measured with the file's own class.
      return;
    }
    SourceSize size;
    try {
      size = SourceSize.of(written.file());
    } catch (RuntimeException e) {
      events.add(
          SimpleConditionEvent.violated(
              javaClass, "cannot measure " + javaClass.getName() + ": " + e.getMessage()));
      return;
    }
    measured.add(new Measured(javaClass, size));
    String file = written.file().getFileName().toString();
    boolean small = size.lines() <= maxClassLines;
    events.add(
        new SimpleConditionEvent(
            javaClass,
            small,
            String.format(
                Locale.ROOT,
                "class %s has %d lines (at most %d) in (%s:1): %s into classes of their own",
                javaClass.getName(),
                size.lines(),
                maxClassLines,
                file,
                WAY_OUT)));
    for (SourceSize.MethodSize method : size.methodsOver(maxMethodLines)) {
      events.add(
          SimpleConditionEvent.violated(
              javaClass,
              String.format(
                  Locale.ROOT,
                  "method %s.%s has %d lines (at most %d) in (%s:%d): %s into methods of their own",
                  javaClass.getPackageName(),
                  method.name(),
                  method.lines(),
                  maxMethodLines,
                  file,
                  method.line(),
                  WAY_OUT)));
    }
  }

  @Override
  public void finish(ConditionEvents events) {
    if (largestToPrint <= 0 || measured.isEmpty()) {
      return;
    }
    List<Ranked> classes =
        measured.stream().map(m -> new Ranked(m.javaClass().getName(), m.size().lines())).toList();
    List<Ranked> methods =
        measured.stream()
            .flatMap(
                m ->
                    m.size().methods().stream()
                        .map(
                            method ->
                                new Ranked(
                                    m.javaClass().getPackageName() + "." + method.name(),
                                    method.lines())))
            .toList();
    StringBuilder report = new StringBuilder(System.lineSeparator());
    appendLargest(report, "classes", classes, maxClassLines);
    appendLargest(report, "methods and constructors", methods, maxMethodLines);
    out.print(report);
    out.flush();
  }

  /** A class or method and its lines, for the printed ranking. */
  private record Ranked(String name, int lines) {}

  private void appendLargest(StringBuilder report, String what, List<Ranked> all, int limit) {
    report.append(
        String.format(
            Locale.ROOT,
            "The %d largest of %d %s (lines; at most %d):%n",
            Math.min(largestToPrint, all.size()),
            all.size(),
            what,
            limit));
    all.stream()
        .sorted(Comparator.comparingInt(Ranked::lines).reversed().thenComparing(Ranked::name))
        .limit(largestToPrint)
        .forEach(
            ranked ->
                report.append(
                    String.format(Locale.ROOT, "%6d  %s%n", ranked.lines(), ranked.name())));
  }
}
