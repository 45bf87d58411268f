package io.sluice.connector.duckdb;

import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;

import java.util.Optional;

class NtileContractTest extends OrdersContractBase {
    @Override
    protected Distribution distribution() {
        return new Distribution(DistributionMethod.NTILE, Optional.of("o_orderdate"), Optional.empty());
    }
}
