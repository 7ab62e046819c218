package ai.openalice.rl.cli.imports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rows of a dataset file as HuggingFace serves them: JSONL (read line by line, so a bad line is
 * named by its number), or Parquet and CSV, read by DuckDB (its JDBC driver reads both natively;
 * each row comes back as one JSON object, nested lists and structs included; CSV columns as text,
 * unchanged).
 */
public final class DatasetFile {
    static final ObjectMapper JSON = new ObjectMapper();

    private DatasetFile() {}

    /** A row and where it is: {@code line} for JSONL, {@code row} (from 1) otherwise; {@code error} when it could not be read. */
    public record Row(int number, ObjectNode json, String error) {}

    public static List<Row> read(Path file) throws IOException {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".parquet")) {
            return duckdb("SELECT to_json(t)::VARCHAR FROM read_parquet(?) t", file);
        }
        if (name.endsWith(".csv")) {
            return duckdb("SELECT to_json(t)::VARCHAR FROM read_csv(?, header = true, all_varchar = true) t", file);
        }
        return jsonl(file);
    }

    private static List<Row> jsonl(Path file) throws IOException {
        var rows = new ArrayList<Row>();
        int n = 0;
        for (String line : Files.readAllLines(file)) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode node = JSON.readTree(line);
                rows.add(node instanceof ObjectNode o ? new Row(n, o, null) : new Row(n, null, "not a JSON object"));
            } catch (IOException e) {
                rows.add(new Row(n, null, "not JSON: " + e.getMessage().lines().findFirst().orElse("")));
            }
        }
        return rows;
    }

    private static List<Row> duckdb(String sql, Path file) throws IOException {
        var rows = new ArrayList<Row>();
        try (var db = DriverManager.getConnection("jdbc:duckdb:"); var st = db.prepareStatement(sql)) {
            st.setString(1, file.toAbsolutePath().toString());
            try (var rs = st.executeQuery()) {
                int n = 0;
                while (rs.next()) {
                    n++;
                    JsonNode node = JSON.readTree(rs.getString(1));
                    rows.add(node instanceof ObjectNode o ? new Row(n, o, null) : new Row(n, null, "not a record"));
                }
            }
        } catch (SQLException e) {
            throw new IOException(file + " cannot be read as " + (sql.contains("parquet") ? "Parquet" : "CSV") + ": " + e.getMessage(), e);
        }
        return rows;
    }
}
