package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/strimzi/kafka-users.yaml grants each service exactly what its channels use, read from the
 * service's application.properties: Read and Describe on every topic it consumes, Write and
 * Describe on every topic it produces and on each consumed topic's dead-letter topic, Read on its
 * consumer groups (prefix: the service's name); a change to a service's topics without the ACLs
 * fails here.
 */
class KafkaUsersTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final List<String> SERVICES = List.of("task-dispatcher", "sandbox-runner", "verifier", "rubric-prm", "inference", "trainer");

    @Test
    void everyServiceMayUseItsOwnTopicsAndNoOther() throws Exception {
        var users = granted();
        for (String service : SERVICES) {
            assertEquals(expected(service), users.get("alice-rl-" + service), service);
            // every group id the service consumes in starts with its name, so the prefixed group ACL covers it
            for (var e : channels(service, "incoming", "group.id").entrySet()) {
                assertEquals(true, e.getValue().startsWith(service), service + " " + e.getKey() + " group " + e.getValue());
            }
        }
        assertEquals(new TreeSet<>(Set.of("topic:tasks.submitted:literal:Write", "topic:tasks.submitted:literal:Describe",
                "topic:tasks.rejected:literal:Write", "topic:tasks.rejected:literal:Describe")), users.get("alice-rl-publisher"));
        assertEquals(SERVICES.size() + 1, users.size());
    }

    static Set<String> expected(String service) throws Exception {
        var out = new TreeSet<String>();
        for (String topic : channels(service, "incoming", "topic").values()) {
            out.add("topic:" + topic + ":literal:Read");
            out.add("topic:" + topic + ":literal:Describe");
            out.add("topic:" + topic + ".dlq:literal:Write");
            out.add("topic:" + topic + ".dlq:literal:Describe");
        }
        for (String topic : channels(service, "outgoing", "topic").values()) {
            out.add("topic:" + topic + ":literal:Write");
            out.add("topic:" + topic + ":literal:Describe");
        }
        if (service.equals("task-dispatcher")) { // AcceptedTopic provisions tasks.accepted (compacted) itself
            for (String op : List.of("Create", "DescribeConfigs", "AlterConfigs")) {
                out.add("topic:tasks.accepted:literal:" + op);
            }
        }
        out.add("group:" + service + ":prefix:Read");
        return out;
    }

    /** channel → value of {@code mp.messaging.<direction>.<channel>.<key>}, the topic suffix (tests only) taken off. */
    static Map<String, String> channels(String service, String direction, String key) throws Exception {
        var p = new Properties();
        p.load(new StringReader(Files.readString(ROOT.resolve("services").resolve(service).resolve("src/main/resources/application.properties"))));
        var out = new TreeMap<String, String>();
        String prefix = "mp.messaging." + direction + ".";
        for (String name : p.stringPropertyNames()) {
            String rest = name.startsWith(prefix) ? name.substring(prefix.length()) : "";
            if (rest.endsWith("." + key) && rest.indexOf('.') == rest.length() - key.length() - 1) { // <channel>.<key>, no %profile
                out.put(name, p.getProperty(name).replace("${alice.topic-suffix}", ""));
            }
        }
        return out;
    }

    /** user → "type:name:patternType:Operation" for every ACL of every KafkaUser in the file. */
    @SuppressWarnings("unchecked")
    static Map<String, Set<String>> granted() throws Exception {
        var out = new TreeMap<String, Set<String>>();
        for (Object doc : new Yaml().loadAll(Files.readString(ROOT.resolve("deploy/strimzi/kafka-users.yaml")))) {
            var user = (Map<String, Object>) doc;
            assertEquals("KafkaUser", user.get("kind"));
            var spec = (Map<String, Object>) user.get("spec");
            assertEquals("scram-sha-512", ((Map<String, Object>) spec.get("authentication")).get("type"));
            var set = new TreeSet<String>();
            for (Object a : (List<Object>) ((Map<String, Object>) spec.get("authorization")).get("acls")) {
                var acl = (Map<String, Object>) a;
                var r = (Map<String, Object>) acl.get("resource");
                for (Object op : (List<Object>) acl.get("operations")) {
                    set.add(r.get("type") + ":" + r.get("name") + ":" + r.get("patternType") + ":" + op);
                }
            }
            out.put((String) ((Map<String, Object>) user.get("metadata")).get("name"), set);
        }
        return out;
    }
}
