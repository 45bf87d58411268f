package io.sluice.core.ledger;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.StreamKey;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link LedgerStore} in memory, for the ledger's rules without a server: every transaction holds one lock (so
 * locks are trivially held to its end), and one that throws puts every row back as it was. The clock is the test's.
 */
final class MemoryLedgerStore implements LedgerStore {
    private final ReentrantLock lock = new ReentrantLock();
    private Rows rows = new Rows();
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");

    /** The rows, copied whole at each transaction's start so a failed one can be undone. */
    private static final class Rows {
        final Map<StreamKey, LedgerStream> streams = new LinkedHashMap<>();
        final Map<StreamKey, Map<String, LedgerPartition>> partitions = new LinkedHashMap<>();
        final List<AttemptRecord> attempts = new ArrayList<>();
        final Map<StreamKey, Map<String, String>> marks = new LinkedHashMap<>();

        Rows copy() {
            Rows copy = new Rows();
            copy.streams.putAll(streams);
            partitions.forEach((k, v) -> copy.partitions.put(k, new LinkedHashMap<>(v)));
            copy.attempts.addAll(attempts);
            marks.forEach((k, v) -> copy.marks.put(k, new LinkedHashMap<>(v)));
            return copy;
        }
    }

    /** Moves the store's clock, which leases are measured by. */
    void advance(java.time.Duration by) {
        lock.lock();
        try {
            now = now.plus(by);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String describe() {
        return "the memory ledger";
    }

    @Override
    public void ensureReady() {
    }

    @Override
    public <T> T inTransaction(LedgerWork<T> work) throws ConnectorException {
        lock.lock();
        Rows before = rows.copy();
        try {
            return work.apply(new Transaction());
        } catch (ConnectorException | RuntimeException e) {
            rows = before;
            throw e;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<LedgerStream> streamsOfRun(String runId) throws ConnectorException {
        return inTransaction(tx -> rows.streams.values().stream().filter(s -> s.runId().equals(runId)).toList());
    }

    @Override
    public List<LedgerStream> streamsOfSpec(String specName, int runs) throws ConnectorException {
        return inTransaction(tx -> {
            List<String> newest = rows.streams.values().stream().filter(s -> s.specName().equals(specName))
                    .map(LedgerStream::runId).distinct().toList().reversed().stream().limit(runs).toList();
            return rows.streams.values().stream().filter(s -> newest.contains(s.runId())).toList();
        });
    }

    @Override
    public List<LedgerPartition> partitions(StreamKey key) throws ConnectorException {
        return inTransaction(tx -> tx.partitions(key));
    }

    @Override
    public List<AttemptRecord> attempts(StreamKey key) throws ConnectorException {
        return inTransaction(tx -> rows.attempts.stream().filter(a -> a.runId().equals(key.runId())
                && a.stream().equals(key.stream())).toList());
    }

    @Override
    public Map<String, String> marks(StreamKey key) throws ConnectorException {
        return inTransaction(tx -> tx.marks(key));
    }

    private final class Transaction implements LedgerTransaction {
        @Override
        public boolean insertStream(LedgerStream stream) {
            return rows.streams.putIfAbsent(stream.key(), stream) == null;
        }

        @Override
        public Optional<LedgerStream> lockStream(StreamKey key) {
            return Optional.ofNullable(rows.streams.get(key));
        }

        @Override
        public void updateStream(LedgerStream stream) {
            rows.streams.put(stream.key(), stream);
        }

        @Override
        public List<LedgerPartition> partitions(StreamKey key) {
            return rows.partitions.getOrDefault(key, Map.of()).values().stream()
                    .sorted(Comparator.comparingInt(LedgerPartition::index)).toList();
        }

        @Override
        public Optional<LedgerPartition> lockPartition(StreamKey key, String partitionId) {
            return Optional.ofNullable(rows.partitions.getOrDefault(key, Map.of()).get(partitionId));
        }

        @Override
        public void writePartitions(StreamKey key, List<LedgerPartition> partitions) {
            Map<String, LedgerPartition> own = rows.partitions.computeIfAbsent(key, k -> new LinkedHashMap<>());
            partitions.forEach(p -> own.put(p.partitionId(), p));
        }

        @Override
        public Instant now() {
            return now;
        }

        @Override
        public Optional<LedgerPartition> lockNextClaimable(StreamKey key, Instant at) {
            return partitions(key).stream().filter(p -> p.state() == LedgerPartition.State.PLANNED && p.index() >= 0)
                    .filter(p -> p.claim().map(c -> c.leaseUntil().isBefore(at)).orElse(true)).findFirst();
        }

        @Override
        public void insertAttempt(AttemptRecord attempt) {
            rows.attempts.add(attempt);
        }

        @Override
        public Map<String, String> marks(StreamKey key) {
            return Map.copyOf(rows.marks.getOrDefault(key, Map.of()));
        }

        @Override
        public void writeMark(StreamKey key, String name, String value) {
            rows.marks.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(name, value);
        }
    }
}
