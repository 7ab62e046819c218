package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Keys and certificates a TLS test makes for itself with the JDK's keytool, as an operator would
 * with a cluster CA: a certificate authority, a broker key pair whose certificate that CA signs for
 * 127.0.0.1 (its subject alternative name, which Kafka's clients check), the broker's PKCS#12
 * keystore, and a PKCS#12 truststore holding only the CA's certificate — the form the chart mounts
 * (Strimzi's {@code ca.p12}). {@link #untrusted} makes a truststore of another CA, which the broker's
 * certificate does not chain to. Valid for two days; nothing leaves {@code dir}.
 */
final class TestCertificates {
    final Path dir;
    final String password = "tls-" + UUID.randomUUID();
    final Path brokerKeystore;
    final Path truststore;

    TestCertificates(Path dir) throws Exception {
        this.dir = Files.createDirectories(dir);
        Path ca = ca("ca");
        brokerKeystore = dir.resolve("broker.p12");
        keytool("-genkeypair", "-alias", "broker", "-dname", "CN=127.0.0.1", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-keystore", brokerKeystore.toString());
        keytool("-certreq", "-alias", "broker", "-keystore", brokerKeystore.toString(), "-file", dir.resolve("broker.csr").toString());
        keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-infile", dir.resolve("broker.csr").toString(), "-outfile",
                dir.resolve("broker.crt").toString(), "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-ext", "EKU=serverAuth", "-validity", "2");
        Path caCert = dir.resolve("ca.crt");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caCert.toString());
        // the chain: the CA's certificate first, then the CA-signed reply replaces the broker's self-signed one
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(), "-keystore", brokerKeystore.toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", dir.resolve("broker.crt").toString(), "-keystore", brokerKeystore.toString());
        truststore = truststore("truststore.p12", caCert);
    }

    /** A truststore of a CA of its own, which did not sign the broker's certificate. */
    Path untrusted() throws Exception {
        Path other = ca("other-ca");
        Path cert = dir.resolve("other-ca.crt");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", other.toString(), "-file", cert.toString());
        return truststore("untrusted.p12", cert);
    }

    private Path ca(String name) throws Exception {
        Path store = dir.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", "ca", "-dname", "CN=alice-rl test " + name, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-ext", "bc:c", "-keystore", store.toString());
        return store;
    }

    private Path truststore(String name, Path caCert) throws Exception {
        Path store = dir.resolve(name);
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(), "-keystore", store.toString());
        return store;
    }

    private void keytool(String... args) throws Exception {
        var cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storetype", "PKCS12", "-storepass", password));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "keytool " + String.join(" ", args) + ": " + out);
    }
}
