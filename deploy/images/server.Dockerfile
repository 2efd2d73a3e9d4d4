# The control plane's image: `berth server` (deploy/base/deployment.yaml runs it).
#
# Build from the repository root after `make build`, which leaves the distribution in
# berth-cli/target (berth-cli.jar and lib/):
#   docker build -f deploy/images/server.Dockerfile -t berth-server:dev .
#
# bin/berth finds its jar at <its directory>/../berth-cli/target/berth-cli.jar (the jar's manifest
# puts lib/*.jar beside it on the classpath), so the image keeps that layout under /opt/berth.
FROM eclipse-temurin:21-jre

# The uid the Deployment's securityContext names (runAsUser 10001). Its home is the data
# directory's parent, which the Deployment mounts as an emptyDir.
RUN groupadd --gid 10001 berth \
 && useradd --uid 10001 --gid 10001 --home-dir /var/lib/berth --no-create-home \
      --shell /usr/sbin/nologin berth \
 && install -d -o 10001 -g 10001 -m 0700 /var/lib/berth

COPY bin/berth /opt/berth/bin/berth
# bin/java-home would look for a JDK; the image has only the JRE at $JAVA_HOME.
COPY deploy/images/java-home /opt/berth/bin/java-home
COPY berth-cli/target/lib/ /opt/berth/berth-cli/target/lib/
COPY berth-cli/target/berth-cli.jar /opt/berth/berth-cli/target/berth-cli.jar

USER 10001:10001
WORKDIR /var/lib/berth
EXPOSE 8080
ENTRYPOINT ["/opt/berth/bin/berth"]
CMD ["server", "--listen", "0.0.0.0:8080", "--data-dir", "/var/lib/berth/server"]
