package io.sluice.connector.duckdb;

import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;

import java.util.Optional;

class RangeContractTest extends OrdersContractBase {
    @Override
    protected Distribution distribution() {
        return new Distribution(DistributionMethod.RANGE, Optional.of("o_orderkey"), Optional.empty());
    }
}
