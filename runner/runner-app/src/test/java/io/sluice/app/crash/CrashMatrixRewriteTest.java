package io.sluice.app.crash;

import java.util.List;

/**
 * The crash matrix's modes with a step after the copy: a swap, a merge, a delete of the missing, an index rebuild, a
 * created table's primary key, a created table's definition.
 */
class CrashMatrixRewriteTest extends CrashMatrix {
    @Override
    List<Mode> modes() {
        return List.of(Mode.REPLACE, Mode.MERGE, Mode.MERGE_DELETE_MISSING, Mode.INDEX_REBUILD, Mode.INCREMENTAL_MERGE,
                Mode.CREATED_KEY, Mode.CREATED_FULL);
    }
}
