#!/bin/sh
# Kafka's tool of that name, at the path apache/kafka's image has it (docker-compose.yml's health
# check runs it): asks the broker for its API versions over the wire.
exec java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile=/opt/kafka/log4j2.properties -Dkafka.logs.dir=/tmp \
  -cp '/opt/kafka/libs/*' org.apache.kafka.tools.BrokerApiVersionsCommand "$@"
