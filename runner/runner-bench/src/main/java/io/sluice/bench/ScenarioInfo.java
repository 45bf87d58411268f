package io.sluice.bench;

import static java.util.Objects.requireNonNull;

/**
 * What a scenario is: its section, the target table, its role, the tool as the report names it, and the degree
 * (parallel streams or DuckDB threads; 0 when not applicable).
 */
public record ScenarioInfo(Section section, BenchTarget target, ScenarioRole role, String tool, String slug,
                           int degree) {
    public ScenarioInfo {
        requireNonNull(section, "section is null");
        requireNonNull(target, "target is null");
        requireNonNull(role, "role is null");
        requireNonNull(tool, "tool is null");
        requireNonNull(slug, "slug is null");
    }

    /** Stable id used by {@code --scenarios} and in log file names, e.g. {@code lineitem-logged/sluice-ctid-d2}. */
    public String id() {
        return section.id() + "/" + slug + (degree > 0 ? "-d" + degree : "");
    }
}
