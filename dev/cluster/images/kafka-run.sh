#!/bin/sh
# The Kafka image's entrypoint: one KRaft node (broker and controller), the jars the test broker
# uses (Maven Central), storage formatted on first start.
#   KAFKA_ADVERTISED_HOST  the name clients reach it by (its Service's DNS name), with the defaults below
#   KAFKA_FOO_BAR=v        the property foo.bar=v, after (so over) the defaults: the convention of
#                          apache/kafka's image (___ is -, __ is _, _ is .), so that docker-compose.yml
#                          configures this image and that one alike; CLUSTER_ID as there too
set -eu
props=/tmp/server.properties
{
  cat <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=PLAINTEXT://0.0.0.0:9092,CONTROLLER://127.0.0.1:9093
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=/var/lib/kafka/data
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  [ -z "${KAFKA_ADVERTISED_HOST:-}" ] || echo "advertised.listeners=PLAINTEXT://$KAFKA_ADVERTISED_HOST:9092"
  env | sed -n 's/^KAFKA_\([A-Z0-9_]*\)=\(.*\)$/\1 \2/p' | while read -r key value; do
    case $key in # the image's own settings and the JVM's, not broker properties
      ADVERTISED_HOST | HEAP_OPTS | OPTS | JMX_OPTS | JVM_PERFORMANCE_OPTS | GC_LOG_OPTS | VERSION | LOG4J_* | TOOLS_LOG4J_LOGLEVEL) continue ;;
    esac
    printf '%s=%s\n' "$(printf %s "$key" | tr 'A-Z' 'a-z' | sed 's/___/-/g; s/__/@/g; s/_/./g; s/@/_/g')" "$value"
  done
} > "$props"
grep -q '^advertised\.listeners=' "$props" || { echo "kafka-run: set KAFKA_ADVERTISED_HOST or KAFKA_ADVERTISED_LISTENERS" >&2; exit 2; }
data=$(sed -n 's/^log\.dirs=//p' "$props" | tail -1 | cut -d, -f1) # Properties: the last one counts
mkdir -p "$data"
log4j="-Dlog4j2.configurationFile=/opt/kafka/log4j2.properties -Dkafka.logs.dir=/tmp"
if [ ! -f "$data/meta.properties" ]; then
  id=${CLUSTER_ID:-$(java -cp '/opt/kafka/libs/*' $log4j kafka.tools.StorageTool random-uuid)}
  java -cp '/opt/kafka/libs/*' $log4j kafka.tools.StorageTool format -t "$id" -c "$props" --ignore-formatted
fi
# shellcheck disable=SC2086
exec java ${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m} -XX:+UseSerialGC -Djava.awt.headless=true $log4j -cp '/opt/kafka/libs/*' kafka.Kafka "$props"
