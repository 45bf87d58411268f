package io.sluice.connector.duckdb;

import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;

import java.util.Optional;

class DataDrivenContractTest extends OrdersContractBase {
    @Override
    protected Distribution distribution() {
        return new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("filename"),
                Optional.of("select file from glob('orders-*.parquet')"));
    }
}
