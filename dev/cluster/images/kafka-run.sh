#!/bin/sh
# The Kafka image's entrypoint: one KRaft node (broker and controller), the jars the test broker
# uses (Maven Central), storage formatted on first start. KAFKA_ADVERTISED_HOST: the name clients
# reach it by (its Service's DNS name).
set -eu
data=${KAFKA_DATA:-/var/lib/kafka}
host=${KAFKA_ADVERTISED_HOST:?KAFKA_ADVERTISED_HOST: the name clients reach this broker by}
mkdir -p "$data"
cat > /tmp/server.properties <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=PLAINTEXT://0.0.0.0:9092,CONTROLLER://127.0.0.1:9093
advertised.listeners=PLAINTEXT://$host:9092
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$data
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
log4j="-Dlog4j2.configurationFile=/opt/kafka/log4j2.properties -Dkafka.logs.dir=/tmp"
if [ ! -f "$data/meta.properties" ]; then
  java -cp '/opt/kafka/libs/*' $log4j kafka.tools.StorageTool format -t "$(java -cp '/opt/kafka/libs/*' kafka.tools.StorageTool random-uuid)" \
    -c /tmp/server.properties --ignore-formatted
fi
exec java -Xms256m -Xmx768m -XX:+UseSerialGC -Djava.awt.headless=true $log4j -cp '/opt/kafka/libs/*' kafka.Kafka /tmp/server.properties
