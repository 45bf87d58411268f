package io.sluice.connector.duckdb;

import io.sluice.spi.data.LineageDataset;

/**
 * A files: glob as one dataset for lineage, its folder (the part before the first wildcard, up to its last slash), named
 * as OpenLineage's conventions name files: namespace {@code file} and the absolute path locally, {@code s3://bucket}
 * (or {@code scheme://host}) and the key prefix remotely ({@code /} for the bucket's root).
 */
final class FileLineage {
    private FileLineage() {
    }

    static LineageDataset of(String glob) {
        int wild = glob.length();
        for (char c : new char[] {'*', '?', '[', '{'}) {
            int at = glob.indexOf(c);
            wild = at >= 0 ? Math.min(wild, at) : wild;
        }
        String fixed = glob.substring(0, wild);
        String folder = wild < glob.length() ? fixed.substring(0, Math.max(0, fixed.lastIndexOf('/'))) : fixed;
        int scheme = folder.indexOf("://");
        if (scheme < 0) {
            return new LineageDataset("file", folder.isEmpty() ? "/" : folder);
        }
        String rest = folder.substring(scheme + 3);
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String key = slash < 0 ? "" : rest.substring(slash + 1);
        return new LineageDataset(folder.substring(0, scheme + 3) + authority, key.isEmpty() ? "/" : key);
    }
}
