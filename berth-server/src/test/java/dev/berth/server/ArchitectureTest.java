package dev.berth.server;

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

/** Architecture rules of the server module (house style G19). */
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
}
