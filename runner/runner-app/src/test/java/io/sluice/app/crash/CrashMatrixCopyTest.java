package io.sluice.app.crash;

import java.util.List;

/** The crash matrix's modes that copy into the table itself: append, truncate (one transaction or not), patterns. */
class CrashMatrixCopyTest extends CrashMatrix {
    @Override
    List<Mode> modes() {
        return List.of(Mode.APPEND, Mode.TRUNCATE_ONE_TRANSACTION, Mode.TRUNCATE, Mode.INCREMENTAL_APPEND,
                Mode.PATTERN);
    }
}
