package ai.openalice.rl.deploy;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The chart rendered with helm-java (no helm binary) and read back as fabric8 objects. */
final class Chart {
    static final Path DIR = Path.of("..", "helm", "alice-rl").toAbsolutePath().normalize();
    static final String RELEASE = "alice-rl";
    static final String NAMESPACE = "alice-rl";
    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private Chart() {}

    static String render(Map<String, Object> sets) {
        var t = new Helm(DIR).template().withName(RELEASE).withNamespace(NAMESPACE);
        sets.forEach(t::set);
        return t.call();
    }

    static List<HasMetadata> objects(String rendered) {
        var out = new ArrayList<HasMetadata>();
        for (String doc : rendered.split("(?m)^---\\s*$")) {
            String body = doc.lines().filter(l -> !l.startsWith("#")).reduce("", (a, b) -> a + b + "\n");
            if (!body.isBlank()) {
                out.add(SERIALIZATION.unmarshal(doc, HasMetadata.class));
            }
        }
        return out;
    }

    static <T extends HasMetadata> List<T> of(List<HasMetadata> all, Class<T> type) {
        return all.stream().filter(type::isInstance).map(type::cast).toList();
    }
}
