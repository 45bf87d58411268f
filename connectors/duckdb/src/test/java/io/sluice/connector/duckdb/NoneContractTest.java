package io.sluice.connector.duckdb;

import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;

import java.util.Optional;

class NoneContractTest extends OrdersContractBase {
    @Override
    protected Distribution distribution() {
        return new Distribution(DistributionMethod.NONE, Optional.empty(), Optional.empty());
    }
}
