package dev.berth.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.List;

/**
 * Architecture rules of the server module (house style G19), written as JobRunr writes its own:
 * every package family lists what it may depend on, and anything else fails the build. The
 * families: {@code api} (HTTP), {@code auth}, {@code session} (the core's use cases wired, the idle
 * reaper), {@code reconcile} (the loop), the shared agent-protocol adapter in {@code runtime}, the
 * adapters ({@code store.sqlite}, {@code runtime.local}, {@code archive.*}), and the composition
 * root {@code dev.berth.server} itself, the only place that knows every adapter.
 */
@AnalyzeClasses(packages = "dev.berth.server", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  /** Adapter families; each subpackage of one, such as {@code store.sqlite}, is one adapter. */
  private static final List<String> ADAPTER_FAMILIES =
      List.of("dev.berth.server.store.", "dev.berth.server.runtime.", "dev.berth.server.archive.");

  /**
   * Puts each class of {@code dev.berth.server.{store,runtime,archive}.X..} into the slice of its
   * adapter X; other classes (shared ports and wiring) belong to no slice.
   */
  private static final SliceAssignment ADAPTERS =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String pkg = javaClass.getPackageName() + ".";
          for (String family : ADAPTER_FAMILIES) {
            if (pkg.startsWith(family)) {
              String rest = pkg.substring(family.length());
              if (rest.isEmpty()) {
                // A class directly in the family package is shared by its adapters.
                return SliceIdentifier.ignore();
              }
              String adapter = rest.substring(0, rest.indexOf('.'));
              return SliceIdentifier.of(family + adapter);
            }
          }
          return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
          return "adapters in dev.berth.server.{store,runtime,archive}.*";
        }
      };

  @ArchTest
  static final ArchRule adaptersDoNotDependOnEachOther =
      slices()
          .assignedFrom(ADAPTERS)
          .should()
          .notDependOnEachOther()
          .because("adapters of different technologies must not depend on each other")
          .allowEmptyShould(true);

  @ArchTest
  static final ArchRule theControlPlaneSpeaksToNodesOnlyThroughTheProtocol =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.berth.agent..")
          .because(
              "the control plane and the node meet in berth-protocol; only the distribution"
                  + " (berth-cli), which launches both, holds the agent");

  /** What every package may use: the JDK, and JSpecify's nullness annotations. */
  private static final String[] JDK = {"java..", "javax..", "org.jspecify.."};

  private static String[] allowed(String... packages) {
    String[] all = new String[JDK.length + packages.length + 3];
    System.arraycopy(JDK, 0, all, 0, JDK.length);
    System.arraycopy(packages, 0, all, JDK.length, packages.length);
    all[all.length - 3] = "dev.berth.core..";
    // Logging and metering are facades every package may speak to, as it logs.
    all[all.length - 2] = "org.slf4j..";
    all[all.length - 1] = "io.micrometer..";
    return all;
  }

  @ArchTest
  static final ArchRule theApiSpeaksHttpOverTheUseCasesAndNeverTouchesAnAdapter =
      classes()
          .that()
          .resideInAPackage("dev.berth.server.api..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              allowed(
                  "dev.berth.server.api..",
                  "dev.berth.server.auth",
                  "dev.berth.server.session",
                  // Readiness: named checks the root wires from the ports, run by /readyz.
                  "dev.berth.server.health",
                  "dev.berth.server.telemetry",
                  // The agent protocol's shared vocabulary: its refusals.
                  "dev.berth.protocol..",
                  "io.javalin..",
                  "org.eclipse.jetty..",
                  "jakarta.servlet..",
                  "tools.jackson..",
                  "kotlin..",
                  "org.jetbrains.annotations.."))
          .because("the API calls the core's use cases; adapters are wired by the root only");

  @ArchTest
  static final ArchRule theApiNeverReachesIntoTheAgentWireAdapter =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.server.api..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.berth.server.runtime..")
          .because(
              "what the API reads of an agent (its refusals, a restore's progress) lives in the"
                  + " core or the protocol; the agent wire is an adapter the root wires");

  @ArchTest
  static final ArchRule theSessionPackageWiresTheCoresUseCasesOverPortsOnly =
      classes()
          .that()
          .resideInAPackage("dev.berth.server.session..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(allowed("dev.berth.server.session.."))
          .because("use cases run over the core's ports, whatever adapter is behind them");

  @ArchTest
  static final ArchRule theReconcileLoopKnowsOnlyTheCore =
      classes()
          .that()
          .resideInAPackage("dev.berth.server.reconcile..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(allowed("dev.berth.server.reconcile.."));

  @ArchTest
  static final ArchRule authenticationKnowsOnlyTheCoreAndTheProtocolsFileRules =
      classes()
          .that()
          .resideInAPackage("dev.berth.server.auth..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(allowed("dev.berth.server.auth..", "dev.berth.protocol.."));

  @ArchTest
  static final ArchRule adaptersDependOnTheCoreTheProtocolAndTheirOwnTechnologyOnly =
      classes()
          .that()
          .resideInAnyPackage(
              "dev.berth.server.store..",
              "dev.berth.server.runtime..",
              "dev.berth.server.archive..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              allowed(
                  "dev.berth.server.store..",
                  "dev.berth.server.runtime..",
                  "dev.berth.server.archive..",
                  "dev.berth.protocol..",
                  // What the store adapters share with berth-kubernetes's ConfigMap store.
                  "dev.berth.store..",
                  "tools.jackson..",
                  "com.fasterxml.jackson..",
                  "org.sqlite..",
                  "com.zaxxer.hikari..",
                  "org.flywaydb..",
                  "com.github.benmanes.caffeine..",
                  // The agent wire's blocking client (BlockingAgentHttp).
                  "org.apache.hc.."))
          .because("an adapter is a port's technology: it knows no API, session or loop code");

  @ArchTest
  static final ArchRule onlyTheCompositionRootUsesTheAdapters =
      noClasses()
          .that()
          .resideInAnyPackage(
              "dev.berth.server.api..",
              "dev.berth.server.auth..",
              "dev.berth.server.session..",
              "dev.berth.server.reconcile..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.berth.server.store..",
              "dev.berth.server.runtime.local..",
              "dev.berth.server.archive..")
          .because("only dev.berth.server (the composition root) wires adapters");
}
